import type { Database, Key, RootDatabase, Transaction } from 'lmdb';
import type { Recorded } from './envelope.js';
import { indexStamp, type EventIndex, type IndexLookup } from './event-index.js';
import { decodeSnapshot, encodeSnapshot, type SnapshotStore } from './snapshot-store.js';
import type { StoredSnapshot } from './snapshot-digest.js';

/** How many events one catch-up write indexes, so a long catch-up never holds the write lock for long. */
const INDEX_CHUNK = 20_000;

/** What the registered indexes cover: the seq they reach, and the code that made each (its stamp). */
export interface IndexCoverage {
  seq: number;
  stamps: Record<string, string>;
}

export type IndexEntry = [index: string, key: string, seq: number];

/** What one append writes to the indexes (see `LmdbDerived.planIndex`). */
export interface IndexPlan {
  /** The entries there were made by other code: dropped first. */
  clear: boolean;
  entries: IndexEntry[];
}

/** Stands for a database a read-only log does not have: nothing in it, never written. */
function none<V, K extends Key>(): Database<V, K> {
  return {
    get: () => undefined,
    getBinary: () => undefined,
    getKeys: () => [],
    getValues: () => [],
    getRange: () => [],
    doesExist: () => false,
  } as unknown as Database<V, K>;
}

/**
 * What the LMDB log derives from its events, in two databases of its own environment:
 * - `derived`: `state/<name>` → a projection's snapshot; `indexes` → the seq the indexes cover and
 *   the code that made each (one record, written with every append that indexes);
 * - `index`: `[index, key]` → seqs (dupSort), the index entries.
 * Everything here can be dropped and rebuilt from the events (`logs rebuild`).
 */
export class LmdbDerived implements SnapshotStore {
  private readonly derived: Database<Buffer, string>;
  private readonly entries: Database<number, [string, string]>;
  private readonly indexes = new Map<string, { index: EventIndex; stamp: string }>();
  /** The coverage record this process last wrote, as bytes: read back unchanged, it need not be parsed again. */
  private lastCoverage?: { bytes: Buffer; seq: number };

  constructor(root: RootDatabase) {
    // Opened read-only, a log written before these existed has neither (openDB answers undefined):
    // it reads as one with no snapshots and no index entries.
    this.derived = root.openDB<Buffer, string>({ name: 'derived', encoding: 'binary' }) ?? none();
    this.entries =
      root.openDB<number, [string, string]>({ name: 'index', dupSort: true, encoding: 'ordered-binary' }) ?? none();
  }

  loadSnapshot(name: string, transaction?: Transaction): StoredSnapshot | undefined {
    // Copied out of LMDB's memory: a snapshot may be kept after the read (verification compares it later).
    return decodeSnapshot(this.derived.get(`state/${name}`, { transaction }));
  }

  /** Inside a write. */
  saveSnapshot(name: string, snapshot: StoredSnapshot): void {
    this.derived.putSync(`state/${name}`, encodeSnapshot(snapshot));
  }

  /** The names of the stored snapshots (verification checks each). */
  snapshotNames(transaction?: Transaction): string[] {
    return [...this.derived.getKeys({ start: 'state/', end: 'state0', transaction })].map((key) =>
      key.slice('state/'.length),
    );
  }

  /** The indexes' coverage record as stored, undefined when there is none or it does not parse. */
  coverageRecord(transaction?: Transaction): IndexCoverage | undefined {
    const bytes = this.derived.get('indexes', { transaction });
    if (!bytes) return undefined;
    try {
      const record = JSON.parse(bytes.toString('utf8')) as IndexCoverage;
      return Number.isSafeInteger(record.seq) && typeof record.stamps === 'object' ? record : undefined;
    } catch {
      return undefined;
    }
  }

  /** True when the index is new here. */
  registerIndex(index: EventIndex): boolean {
    if (this.indexes.get(index.name)?.index === index) return false;
    this.indexes.set(index.name, { index, stamp: indexStamp(index) });
    return true;
  }

  get indexCount(): number {
    return this.indexes.size;
  }

  indexNames(): string[] {
    return [...this.indexes.keys()];
  }

  /**
   * An index entry pointed to an event that does not carry its key: no index is used in this process
   * until the next write has cleared them all and indexed the log again.
   */
  distrusted = false;

  /** The registered index `name`, to check a hit against the event it names. */
  indexNamed(name: string): EventIndex | undefined {
    return this.indexes.get(name)?.index;
  }

  /** The last seq every registered index holds, and whether the entries there were made by this code. */
  coverage(transaction?: Transaction): { seq: number; ours: boolean } {
    if (this.distrusted) return { seq: 0, ours: false };
    const bytes = this.derived.get('indexes', { transaction });
    if (!bytes) return { seq: 0, ours: true };
    if (this.lastCoverage?.bytes.equals(bytes)) return { seq: this.lastCoverage.seq, ours: true };
    let record: IndexCoverage;
    try {
      record = JSON.parse(bytes.toString('utf8')) as IndexCoverage;
    } catch {
      return { seq: 0, ours: false };
    }
    const ours = [...this.indexes].every(([name, { stamp }]) => record.stamps[name] === stamp);
    return { seq: ours ? record.seq : 0, ours };
  }

  covered(): number {
    return this.coverage().seq;
  }

  /**
   * Inside a write, before anything is written (lmdb-js does not undo the writes of a transaction
   * that throws): the entries that bring the indexes up to `head` (the few events writers without
   * indexes appended since) and index `fresh`. `writeIndex` then writes them.
   */
  planIndex(head: number, readFrom: (from: number) => Iterable<Recorded>, fresh: readonly Recorded[]): IndexPlan {
    const { seq, ours } = this.coverage();
    const missed = seq < head ? [...readFrom(seq + 1)] : [];
    return { clear: !ours, entries: this.entriesOf([...missed, ...fresh]) };
  }

  /** Inside a write: the planned entries, and the new coverage (`head`). */
  writeIndex(plan: IndexPlan, head: number): void {
    if (plan.clear) this.clearIndexes();
    for (const [name, key, seq] of plan.entries) this.entries.putSync([name, key], seq);
    const stamps = Object.fromEntries([...this.indexes].map(([name, { stamp }]) => [name, stamp]));
    const bytes = Buffer.from(JSON.stringify({ seq: head, stamps } satisfies IndexCoverage), 'utf8');
    this.derived.putSync('indexes', bytes);
    this.lastCoverage = { bytes, seq: head };
  }

  /** Inside a write: indexes the next chunk of events the indexes lack. True when there is little enough left for an append's own write. */
  catchUpChunk(head: number, read: (from: number, to: number) => Iterable<Recorded>): boolean {
    let { seq, ours } = this.coverage();
    if (!ours) {
      this.clearIndexes();
      seq = 0;
    }
    if (head - seq <= INDEX_CHUNK / 20) return true;
    const to = Math.min(head, seq + INDEX_CHUNK);
    this.indexEvents([...read(seq + 1, to)], to);
    return to === head;
  }

  /**
   * Inside a write: indexes `events` (the next seqs after `covered`) and records the new coverage.
   * When the indexes were made by other code, their entries are cleared first (the caller then
   * indexes from seq 1).
   */
  indexEvents(events: readonly Recorded[], head: number): void {
    this.writeIndex({ clear: false, entries: this.entriesOf(events) }, head);
  }

  /** Every registered index's entries for `events`, as `[index, key, seq]`. */
  private entriesOf(events: readonly Recorded[]): IndexEntry[] {
    const entries: IndexEntry[] = [];
    for (const event of events) {
      for (const [name, { index }] of this.indexes)
        for (const key of index.keys(event)) entries.push([name, key, event.seq]);
    }
    return entries;
  }

  /** Inside a write: drops every index entry (also of indexes not registered here: the coverage record goes with them). */
  private clearIndexes(): void {
    for (const key of this.entries.getKeys()) this.entries.removeSync(key);
    this.derived.removeSync('indexes');
    this.distrusted = false;
    this.lastCoverage = undefined;
  }

  /** Inside a write: every snapshot and index entry gone (`logs rebuild` starts from nothing). */
  clearAll(): void {
    this.clearIndexes();
    for (const key of this.derived.getKeys({ start: 'state/', end: 'state0' })) this.derived.removeSync(key);
  }

  lookup(name: string, key: string, before?: number): IndexLookup {
    const covered = this.covered();
    const start = before === undefined ? undefined : Math.min(before, covered);
    const seqs = this.entries.getValues([name, key], { reverse: true, ...(start === undefined ? {} : { start }) });
    return { seqs: filterUpTo(seqs, covered), covered };
  }

  /** Every index entry, as `[index, key, seq]`, in the store's order (verification sums them). */
  *allEntries(): Iterable<IndexEntry> {
    for (const { key, value } of this.entries.getRange()) yield [key[0], key[1], value];
  }

  /** Whether index `name` lists `seq` under `key`. */
  lists(name: string, key: string, seq: number): boolean {
    return this.entries.doesExist([name, key], seq);
  }

  keysOf(name: string): string[] {
    return [...this.entries.getKeys({ start: [name, ''], end: [name, '\uffff'] })].map(([, key]) => key);
  }

  /** How many events the next catch-up write should index. */
  static readonly chunk = INDEX_CHUNK;
}

/** Entries written by a writer whose coverage record a later writer replaced are past `covered`: leave them out. */
function* filterUpTo(seqs: Iterable<number>, covered: number): Iterable<number> {
  for (const seq of seqs) if (seq <= covered) yield seq;
}
