import { createHash } from 'node:crypto';
import { callIdOf } from './append-batch.js';
import type { Recorded } from './envelope.js';
import { parsed, storedCoverage, text } from './id-index.js';
import type { SideStore } from './side-store.js';

const COVERED = 'calls.covered';

/** The bucket of a call's id, one of 16: the first hex digit of its SHA-256. */
function bucketOf(callId: string): string {
  return createHash('sha256').update(callId).digest('hex').slice(0, 1);
}

/**
 * Where each call's events sit (`readCall`), kept beside a shared stream in pages: for each stretch
 * of the log written out together, one page per bucket of call ids (`calls.<bucket>.<from>-<to>` →
 * call id → seqs), a few puts per few thousand events rather than one per call; a lookup reads the
 * pages of its bucket. `calls.covered` is the seq up to which the pages hold every call's events; the
 * events after it are indexed here, in memory. It is loaded when a node first looks a call up (or,
 * on a node that keeps running, in the background): a node that only records calls never reads it,
 * so a call costs the same on a long log as on a short one. Pages two nodes write for overlapping
 * stretches only repeat seqs; every seq read is checked against its event by the log.
 */
export class CallIndex {
  private covered = 0;
  private foldedTo = 0;
  private loadedFrom?: number;
  /** Set by `restart`: every page is written again, whatever coverage is stored. */
  rewriting = false;
  private readonly calls = new Map<string, number[]>();

  constructor(private readonly side: SideStore) {}

  get loaded(): boolean {
    return this.loadedFrom !== undefined;
  }

  /** Reads how far the stored pages reach (once); the events after it are then indexed as they are folded. */
  async load(): Promise<void> {
    if (this.loaded) return;
    this.covered = await storedCoverage(this.side, COVERED);
    this.foldedTo = this.covered;
    this.loadedFrom = this.covered;
  }

  /** Starts over from seq 1 (`logs rebuild`): the pages are written again as they are folded. */
  restart(): void {
    this.covered = 0;
    this.foldedTo = 0;
    this.loadedFrom = 0;
    this.calls.clear();
    this.rewriting = true;
  }

  /** The last seq folded here (Infinity while not loaded: nothing to fold for it). */
  get folded(): number {
    return this.loaded ? this.foldedTo : Number.POSITIVE_INFINITY;
  }

  /** Events not yet written out. */
  get tail(): number {
    return this.loaded ? this.foldedTo - this.covered : 0;
  }

  /** Indexes events, in seq order, skipping those already folded (all of them while not loaded). */
  add(events: Iterable<Recorded>): void {
    if (!this.loaded) return;
    for (const event of events) {
      if (event.seq !== this.foldedTo + 1) continue;
      this.foldedTo = event.seq;
      const callId = callIdOf(event);
      if (callId === undefined) continue;
      const seqs = this.calls.get(callId);
      if (seqs) seqs.push(event.seq);
      else this.calls.set(callId, [event.seq]);
    }
  }

  /** Where the events of call `callId` are said to be, in seq order (loaded and folded to the head first). */
  async seqsOf(callId: string): Promise<number[]> {
    const bucket = bucketOf(callId);
    const keys = await this.side.keys(`calls.${bucket}.`);
    const pages = await Promise.all(keys.map(async (key) => parsed(await this.side.get(key))));
    const seqs = new Set<number>(this.calls.get(callId));
    for (const page of pages) {
      const listed = (page as Record<string, unknown> | undefined)?.[callId];
      if (Array.isArray(listed)) for (const seq of listed) if (Number.isSafeInteger(seq)) seqs.add(seq as number);
    }
    return [...seqs].sort((a, b) => a - b);
  }

  /** Writes the tail out as pages, then the coverage (when it moves it on); a stretch another node wrote out is only dropped here. */
  async flush(): Promise<void> {
    if (!this.loaded) return;
    const stored = await storedCoverage(this.side, COVERED);
    if (stored > this.covered && !this.rewriting) this.drop(Math.min(stored, this.foldedTo));
    const upTo = this.foldedTo;
    if (upTo <= this.covered) return;
    const pages = new Map<string, Record<string, number[]>>();
    for (const [callId, seqs] of this.calls) {
      const bucket = bucketOf(callId);
      const page = pages.get(bucket) ?? {};
      page[callId] = seqs.filter((seq) => seq <= upTo);
      pages.set(bucket, page);
    }
    const stretch = `${this.covered + 1}-${upTo}`;
    await Promise.all([...pages].map(([bucket, page]) => this.side.put(`calls.${bucket}.${stretch}`, text(page))));
    if (upTo > (await storedCoverage(this.side, COVERED))) await this.side.put(COVERED, text(upTo));
    this.drop(upTo);
  }

  private drop(seq: number): void {
    for (const [callId, seqs] of this.calls) {
      const after = seqs.filter((at) => at > seq);
      if (after.length === 0) this.calls.delete(callId);
      else this.calls.set(callId, after);
    }
    this.covered = Math.max(this.covered, seq);
  }
}
