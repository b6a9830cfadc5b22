import { callIdOf, isGeneratedId } from './append-batch.js';
import type { Recorded } from './envelope.js';
import { sideKey, type SideStore } from './side-store.js';

const COVERED = 'index.covered';
const text = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');
const parsed = (bytes: Uint8Array | undefined): unknown => {
  try {
    return bytes === undefined ? undefined : JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
};

/**
 * The lookups a log over a shared stream needs without holding the stream, kept beside it: the seq
 * of each event whose writer chose its id (`id.<id>` → seq: idempotent appends, a writer's record;
 * an id of the form the log generates is looked up in the tail only, see `isGeneratedId`)
 * and the seqs of each call's events (`call.<callId>.<first seq>` → seqs, one key per stretch of the
 * log the call's events fell in). `index.covered` is the seq up to which every entry is there; the
 * events after it (the tail, a few thousand at most) are indexed here, in memory, as they are folded,
 * and written out when enough of them are (`flush`), by any node, in any order: entries are the same
 * whoever writes them, and coverage only says what the writer of it had written. Every entry read
 * is checked against the event it points to by the log.
 */
export class SideIndex {
  private covered = 0;
  private foldedTo = 0;
  /** Set by `restart`: every entry is written again, whatever coverage is stored. */
  rewriting = false;
  private readonly ids = new Map<string, number>();
  private readonly calls = new Map<string, number[]>();

  constructor(private readonly side: SideStore) {}

  /** Reads how far the stored entries reach; the events after it are to be folded here (`add`). */
  async load(): Promise<number> {
    this.covered = await this.storedCoverage();
    this.foldedTo = this.covered;
    this.ids.clear();
    this.calls.clear();
    return this.covered;
  }

  /** Starts over from seq 1 (`logs rebuild`): the entries are written again as they are folded. */
  restart(): void {
    this.covered = 0;
    this.foldedTo = 0;
    this.ids.clear();
    this.calls.clear();
    this.rewriting = true;
  }

  /** The last seq folded (the next event to `add` is the one after it). */
  get folded(): number {
    return this.foldedTo;
  }

  /** The seq up to which every entry is kept beside the stream, as this node knows. */
  get coverage(): number {
    return this.covered;
  }

  /** Events not yet written out. */
  get tail(): number {
    return this.foldedTo - this.covered;
  }

  /** Indexes events, in seq order, skipping those already folded. */
  add(events: Iterable<Recorded>): void {
    for (const event of events) {
      if (event.seq !== this.foldedTo + 1) continue;
      this.foldedTo = event.seq;
      // Every id while it is in the tail (a writer sending a batch again finds it); only those a writer chose are written out.
      this.ids.set(event.id, event.seq);
      const callId = callIdOf(event);
      if (callId === undefined) continue;
      const seqs = this.calls.get(callId);
      if (seqs) seqs.push(event.seq);
      else this.calls.set(callId, [event.seq]);
    }
  }

  /** Where the event with (writer-chosen) id `id` is said to be. */
  async seqOfId(id: string): Promise<number | undefined> {
    const tail = this.ids.get(id);
    if (tail !== undefined || isGeneratedId(id)) return tail;
    const stored = parsed(await this.side.get(`id.${sideKey(id)}`));
    return Number.isSafeInteger(stored) ? (stored as number) : undefined;
  }

  /** Where the events of call `callId` are said to be, in seq order. */
  async seqsOfCall(callId: string): Promise<number[]> {
    const keys = await this.side.keys(`call.${sideKey(callId)}.`);
    const stored = await Promise.all(keys.map(async (key) => parsed(await this.side.get(key))));
    const seqs = new Set<number>(this.calls.get(callId));
    for (const list of stored)
      if (Array.isArray(list)) for (const seq of list) if (Number.isSafeInteger(seq)) seqs.add(seq as number);
    return [...seqs].sort((a, b) => a - b);
  }

  /**
   * Writes the tail's entries out, then the coverage (when it moves it on). When another node wrote
   * past some of the tail already, that part is only dropped here.
   */
  async flush(): Promise<void> {
    const stored = await this.storedCoverage();
    if (stored > this.covered && !this.rewriting) this.drop(Math.min(stored, this.foldedTo));
    const upTo = this.foldedTo;
    if (upTo <= this.covered) return;
    const puts = [
      ...[...this.ids]
        .filter(([id]) => !isGeneratedId(id))
        .map(([id, seq]) => this.side.put(`id.${sideKey(id)}`, text(seq))),
      ...[...this.calls].map(([callId, seqs]) => this.side.put(`call.${sideKey(callId)}.${seqs[0]}`, text(seqs))),
    ];
    await Promise.all(puts);
    if (upTo > (await this.storedCoverage())) await this.side.put(COVERED, text(upTo));
    this.drop(upTo);
  }

  /** Forgets the tail's entries up to `seq`, now stored. */
  private drop(seq: number): void {
    for (const [id, at] of this.ids) if (at <= seq) this.ids.delete(id);
    for (const [callId, seqs] of this.calls) {
      const after = seqs.filter((at) => at > seq);
      if (after.length === 0) this.calls.delete(callId);
      else this.calls.set(callId, after);
    }
    this.covered = Math.max(this.covered, seq);
  }

  private async storedCoverage(): Promise<number> {
    const value = parsed(await this.side.get(COVERED));
    return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : 0;
  }
}
