import type { EventLog, EvidenceFacts, LogVerification, HostServices, Unsubscribe } from 'factorly';

/** What the header badge shows: the last verification's outcome, when it ran, and the newest checkpoint. */
export interface EvidenceStatus {
  /** Undefined until the first verification ends. */
  report?: LogVerification;
  checkedAt?: Date;
  /** The verification that failed to run (a log that could not be read), as a message. */
  failure?: string;
  checking: boolean;
  facts: EvidenceFacts;
}

/** Least time between two verifications started because the log grew (a full check reads every event). */
export const RECHECK_MS = 30_000;

/**
 * Keeps the evidence status the header shows on every page without making a page wait for it:
 * verifies the log once at start, again when it has grown (at most every `recheckMs`), and whenever
 * a page asks for a fresh report (`verifyNow`, the audit page). The newest checkpoint is re-read
 * whenever the log records one. Verifications never overlap: a request during one shares it.
 */
export class EvidenceWatch {
  private status: EvidenceStatus = { checking: false, facts: {} };
  private running?: Promise<LogVerification>;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: Unsubscribe;
  private stopped = false;

  constructor(
    private readonly log: EventLog,
    private readonly services: HostServices,
    private readonly recheckMs = RECHECK_MS,
  ) {}

  async start(): Promise<void> {
    const { seq } = await this.log.head();
    this.unsubscribe = this.log.subscribe(seq + 1, (event) => {
      if (event.type === 'log.checkpointed') void this.readFacts();
      this.scheduleRecheck();
    });
    await this.readFacts();
    void this.check(true).catch(() => undefined);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
  }

  current(): EvidenceStatus {
    return this.status;
  }

  /** A fresh verification (or the one under way), recorded as the status. */
  verifyNow(): Promise<LogVerification> {
    return this.check(false);
  }

  private check(background: boolean): Promise<LogVerification> {
    this.running ??= this.verify(background).finally(() => (this.running = undefined));
    return this.running;
  }

  private async verify(background: boolean): Promise<LogVerification> {
    this.status = { ...this.status, checking: true };
    try {
      const report = await this.services.verify({ background });
      this.status = { ...this.status, report, checkedAt: new Date(), failure: undefined, checking: false };
      return report;
    } catch (error) {
      this.status = {
        ...this.status,
        report: undefined,
        checkedAt: new Date(),
        failure: error instanceof Error ? error.message : String(error),
        checking: false,
      };
      throw error;
    }
  }

  private async readFacts(): Promise<void> {
    try {
      this.status = { ...this.status, facts: await this.services.evidence() };
    } catch {
      // The badge keeps the checkpoint it knew; the audit page reports what cannot be read.
    }
  }

  private scheduleRecheck(): void {
    if (this.stopped || this.timer) return;
    const since = this.status.checkedAt ? Date.now() - this.status.checkedAt.getTime() : this.recheckMs;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (!this.stopped) void this.check(true).catch(() => undefined);
      },
      Math.max(0, this.recheckMs - since),
    );
    this.timer.unref();
  }
}
