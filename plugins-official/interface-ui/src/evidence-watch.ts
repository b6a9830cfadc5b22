import { FactorlyError } from '@factorly/error-kit';
import type { EventLog, EvidenceFacts, LogVerification, HostServices, Unsubscribe } from 'factorly';

/** What the header badge shows: the newest verification's outcome, when it ran, and the newest checkpoint. */
export interface EvidenceStatus {
  /** Undefined until the first full verification ends. */
  report?: LogVerification;
  checkedAt?: Date;
  /** The verification that failed to run (a log that could not be read), as a message. */
  failure?: string;
  /** A full verification is under way. */
  checking: boolean;
  facts: EvidenceFacts;
}

/** Least time between two full verifications the watch starts by itself (a full one reads every event). */
export const RECHECK_MS = 30_000;
/** How long the audit page waits for a first full verification before it shows one under way. */
const FIRST_RESULT_WAIT_MS = 900;

/**
 * Keeps the evidence status the header and the audit page show, without making a page wait for a
 * full verification of a long log. A full verification (chain, indexes, derived state, Merkle tree,
 * checkpoints) runs at start and again in the background: when the log has grown or the audit page
 * asks, at most every `recheckMs` and never more than half the time (so an old flipped byte still
 * turns the badge red), and one at a time. Between them the audit page brings the newest result up
 * to date by checking only the events appended since (`verify({ since })`), so it answers from the
 * newest result at once. The newest checkpoint is re-read whenever the log records one.
 */
export class EvidenceWatch {
  private status: EvidenceStatus = { checking: false, facts: {} };
  private full?: Promise<LogVerification>;
  private first: Promise<unknown>;
  private lastFull = { endedAt: 0, ms: 0 };
  private timer?: NodeJS.Timeout;
  private unsubscribe?: Unsubscribe;
  private stopped = false;
  private markFirst!: () => void;

  constructor(
    private readonly log: EventLog,
    private readonly services: HostServices,
    private readonly recheckMs = RECHECK_MS,
  ) {
    this.first = new Promise<void>((resolve) => (this.markFirst = resolve));
  }

  async start(): Promise<void> {
    const { seq } = await this.log.head();
    this.unsubscribe = this.log.subscribe(seq + 1, (event) => {
      if (event.type === 'log.checkpointed') void this.readFacts();
      this.schedule();
    });
    await this.readFacts();
    void this.fullPass().catch(() => undefined);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
  }

  current(): EvidenceStatus {
    return this.status;
  }

  /**
   * The newest result brought up to date with the events appended since it (what the audit page
   * shows); a full verification is asked for in the background. Undefined while the first one runs
   * (past a short wait); rejects when the last one could not read the log.
   */
  async latest(): Promise<LogVerification | undefined> {
    this.requestFull();
    if (!this.status.report && this.status.failure === undefined)
      await Promise.race([this.first, new Promise((resolve) => setTimeout(resolve, FIRST_RESULT_WAIT_MS).unref())]);
    if (this.status.failure !== undefined && !this.status.report)
      throw new FactorlyError('LOG_UNREADABLE', this.status.failure);
    const report = this.status.report;
    if (!report) return undefined;
    const extended = await this.services.verify({ since: report });
    // A full verification that ended meanwhile is newer: keep it.
    if (this.status.report === report) this.status = { ...this.status, report: extended };
    return extended;
  }

  /** A full verification now, or the one under way (tests, and the start). */
  verifyNow(): Promise<LogVerification> {
    return this.fullPass();
  }

  /** A full verification in the background, unless one runs or one ended too recently to start another. */
  private requestFull(): void {
    if (this.full || this.stopped) return;
    const since = Date.now() - this.lastFull.endedAt;
    if (this.lastFull.endedAt > 0 && since < Math.max(this.lastFull.ms, 1_000)) return;
    void this.fullPass().catch(() => undefined);
  }

  private fullPass(): Promise<LogVerification> {
    this.full ??= this.runFull().finally(() => (this.full = undefined));
    return this.full;
  }

  private async runFull(): Promise<LogVerification> {
    const started = Date.now();
    this.status = { ...this.status, checking: true };
    try {
      const report = await this.services.verify({ background: true });
      // The events appended while it ran, checked on top of it, so the badge never goes back.
      const extended = await this.services.verify({ since: report });
      this.status = { ...this.status, report: extended, checkedAt: new Date(), failure: undefined, checking: false };
      return extended;
    } catch (error) {
      this.status = {
        ...this.status,
        report: undefined,
        checkedAt: new Date(),
        failure: error instanceof Error ? error.message : String(error),
        checking: false,
      };
      throw error;
    } finally {
      this.lastFull = { endedAt: Date.now(), ms: Date.now() - started };
      this.markFirst();
      this.schedule();
    }
  }

  private async readFacts(): Promise<void> {
    try {
      this.status = { ...this.status, facts: await this.services.evidence() };
    } catch {
      // The badge keeps the checkpoint it knew; the audit page reports what cannot be read.
    }
  }

  /** The next background full verification: `recheckMs` after the last began, and at least its own length after it ended. */
  private schedule(): void {
    if (this.stopped || this.timer) return;
    const wait = Math.max(this.recheckMs - this.lastFull.ms, this.lastFull.ms);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (!this.stopped) void this.fullPass().catch(() => undefined);
      },
      Math.max(0, this.lastFull.endedAt + wait - Date.now()),
    );
    this.timer.unref();
  }
}
