import type { ChainBreak } from './chain-check.js';
import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { EventIndex, IndexLookup } from './event-index.js';
import type { Projection, ProjectionView } from './projection.js';
import type { StoredSnapshot } from './snapshot-digest.js';
import type { LogTree } from './transparency-tree.js';
import type { Inflight } from './writer.js';

/** Inclusive seq range; `limit` caps the count; `reverse` reads newest first. */
export interface ReadRange {
  from?: number;
  to?: number;
  limit?: number;
  reverse?: boolean;
}

export interface AppendOptions {
  /**
   * The last seq the writer based its decision on. When the log has moved past it the append is
   * refused with `LOG_CONFLICT`, so a decision that depends on earlier events (a rate limit) can
   * re-read and retry instead of acting on stale state. 0 means "the log must be empty".
   */
  expectedSeq?: number;
  /**
   * Called inside the write when the log has moved past `expectedSeq`, with the new head's seq and a
   * reader for the events up to it (`readFrom(seq)`: from that seq on, in order, from this and other
   * writers). It returns the events to append instead, decided again against those, and the append
   * goes ahead on the new head; `undefined` refuses it with `LOG_CONFLICT`, as without the conflict handler. It
   * must be synchronous and must not write. Every projection registered with the log (`project`) has
   * already been folded up to `head` when it is called, so it can decide from `view.folded()`. This turns a retry (one more durable write per conflict)
   * into a decision inside the write, so concurrent conditional appends share one commit. A log may
   * never call it.
   */
  onConflict?: (head: number, readFrom: (seq: number) => readonly Recorded[]) => readonly NewEvent[] | undefined;
}

export interface LogHead {
  /** Last seq written, 0 for an empty log. */
  seq: number;
  /** Hash of that event, or the genesis hash. */
  hash: string;
}

export type Unsubscribe = () => void;

/**
 * When an append is acknowledged. `fsync` (the default): the events are on disk, they survive a
 * power cut. `commit`: the write is committed (visible to every process, and it survives the writer
 * being killed) but the disk flush may still be under way, so a power cut can lose the last ones.
 */
export type Durability = 'fsync' | 'commit';
export const DURABILITIES: readonly Durability[] = ['fsync', 'commit'];

/** What `rebuild` recomputed. */
export interface RebuildReport {
  events: number;
  projections: string[];
  indexes: string[];
}

/**
 * The append-only, hash-chained event log. Every implementation (LMDB, memory, a networked one)
 * passes `eventLogContract` (factorly/testing) unchanged.
 *
 * Guarantees:
 * - `append` is atomic for the batch: all events get consecutive seqs or none is written.
 * - seqs start at 1 and have no gaps or duplicates, even with several processes appending.
 * - appends are idempotent by event id: an id a writer gave an event, appended again, is returned as
 *   recorded, not re-added (ids the log generates are random and never looked up).
 * - a resolved `append` survives the writer process being killed.
 */
export interface EventLog {
  append(events: readonly NewEvent[], options?: AppendOptions): Promise<Recorded[]>;
  read(range?: ReadRange): AsyncIterable<Recorded>;
  /** Every event whose `data.callId` is `callId`, in seq order. */
  readCall(callId: string): Promise<Recorded[]>;
  /** The newest event of one type, if any. */
  lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined>;
  head(): Promise<LogHead>;
  /**
   * The head as recorded separately at every append, when the implementation keeps one: a log
   * whose events end before it has been truncated.
   */
  attestedHead?(): Promise<LogHead | undefined>;
  /** Where the log is kept (its file), for an error that must name it. Optional. */
  readonly location?: string;
  /**
   * Where the events this log reads stop short of what its store was given, when it can tell (a
   * shared stream that lost a batch, deleted or purged): the first missing seq, which verification
   * reports as tampering. Undefined while every batch is there.
   */
  stoppedShort?(): Promise<ChainBreak | undefined>;
  /**
   * Registers a persisted projection (see `Projection`) and returns its view: the log folds it as
   * events are appended, in the same write, keeps snapshots of it stamped with the seq they cover,
   * and starts a fresh process from the newest snapshot. Registering the same projection again
   * returns the same view; another projection under a registered name is refused.
   */
  project<S>(projection: Projection<S>): ProjectionView<S>;
  /**
   * The snapshots of persisted projections as they are stored (those of `names`, default: the ones
   * registered), for `logs verify` to check against the chain's records and the fold of the events.
   * A log that keeps snapshots and no file of its own to walk (a stream's KV store) offers it.
   */
  storedSnapshots?(names?: readonly string[]): Promise<{ name: string; snapshot?: StoredSnapshot }[]>;
  /** Registers an index (see `EventIndex`), kept in the same write as the events. Optional. */
  index?(index: EventIndex): void;
  /** Seqs under `key` of a registered index, newest first (at most `before`), and how far the index reaches. */
  lookup?(name: string, key: string, before?: number): IndexLookup;
  /** Every key of a registered index. */
  indexKeys?(name: string): string[];
  /** Recomputes every registered projection and index from seq 1 (`logs rebuild`); `progress` sees events done of total. */
  rebuild?(progress?: (done: number, total: number) => void): Promise<RebuildReport>;
  /**
   * The RFC 9162 Merkle tree over the chain hashes (leaf i = the hash of the event with seq i + 1),
   * as of the current head: roots of any size and inclusion and consistency proofs.
   */
  tree?(): Promise<LogTree>;
  /**
   * The calls and sessions open right now, with the writers that opened them (for a log that
   * outlives its writers: a crashed writer's calls are found here when the log is next opened).
   */
  inflight?(): Promise<Inflight>;
  /** Calls `listener` for every event with seq ≥ `fromSeq`, including ones other processes append. */
  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe;
  close(): Promise<void>;
}
