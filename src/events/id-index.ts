import { isGeneratedId } from './append-batch.js';
import type { Recorded } from './envelope.js';
import { sideKey, type SideStore } from './side-store.js';

const COVERED = 'ids.covered';
export const text = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');
export const parsed = (bytes: Uint8Array | undefined): unknown => {
  try {
    return bytes === undefined ? undefined : JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
};

/**
 * Where each event whose writer chose its id sits (`id.<id>` → seq: idempotent appends, a writer's
 * record), kept beside a shared stream so a node finds one without reading the stream. An id of the
 * form the log generates is looked up among the recent events only (see `isGeneratedId`).
 * `ids.covered` is the seq up to which every entry is there; the events after it (the tail, a few
 * hundred at most) are indexed here, in memory, as they are folded, and written out when enough of
 * them are (`flush`), by any node, in any order: entries are the same whoever writes them, and the
 * coverage only says what its writer had written. Every entry read is checked against the event it
 * points to by the log.
 */
export class IdIndex {
  private covered = 0;
  private foldedTo = 0;
  /** Set by `restart`: every entry is written again, whatever coverage is stored. */
  rewriting = false;
  private readonly ids = new Map<string, number>();

  constructor(private readonly side: SideStore) {}

  /** Reads how far the stored entries reach; the events after it are to be folded here (`add`). */
  async load(): Promise<number> {
    this.covered = await storedCoverage(this.side, COVERED);
    this.foldedTo = this.covered;
    this.ids.clear();
    return this.covered;
  }

  /** Starts over from seq 1 (`logs rebuild`): the entries are written again as they are folded. */
  restart(): void {
    this.covered = 0;
    this.foldedTo = 0;
    this.ids.clear();
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
    }
  }

  /** Where the event with (writer-chosen) id `id` is said to be. */
  async seqOfId(id: string): Promise<number | undefined> {
    const tail = this.ids.get(id);
    if (tail !== undefined || isGeneratedId(id)) return tail;
    const stored = parsed(await this.side.get(`id.${sideKey(id)}`));
    return Number.isSafeInteger(stored) ? (stored as number) : undefined;
  }

  /**
   * Writes the tail's entries out, then the coverage (when it moves it on). When another node wrote
   * past some of the tail already, that part is only dropped here.
   */
  async flush(): Promise<void> {
    const stored = await storedCoverage(this.side, COVERED);
    if (stored > this.covered && !this.rewriting) this.drop(Math.min(stored, this.foldedTo));
    const upTo = this.foldedTo;
    if (upTo <= this.covered) return;
    const named = [...this.ids].filter(([id]) => !isGeneratedId(id));
    await Promise.all(named.map(([id, seq]) => this.side.put(`id.${sideKey(id)}`, text(seq))));
    if (upTo > (await storedCoverage(this.side, COVERED))) await this.side.put(COVERED, text(upTo));
    this.drop(upTo);
  }

  /** Forgets the tail's entries up to `seq`, now stored. */
  private drop(seq: number): void {
    for (const [id, at] of this.ids) if (at <= seq) this.ids.delete(id);
    this.covered = Math.max(this.covered, seq);
  }
}

/** How far the entries under `key` are said to reach (0: none stored). */
export async function storedCoverage(side: SideStore, key: string): Promise<number> {
  const value = parsed(await side.get(key));
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : 0;
}
