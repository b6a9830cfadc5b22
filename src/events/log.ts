import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
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
   * goes ahead on the new head; `undefined` refuses it with `LOG_CONFLICT`, as without a rebase. It
   * must be synchronous and must not write. This turns a retry (one more durable write per conflict)
   * into a decision inside the write, so concurrent conditional appends share one commit. A log may
   * never call it.
   */
  rebase?: (head: number, readFrom: (seq: number) => readonly Recorded[]) => readonly NewEvent[] | undefined;
}

export interface LogHead {
  /** Last seq written, 0 for an empty log. */
  seq: number;
  /** Hash of that event, or the genesis hash. */
  hash: string;
}

export type Unsubscribe = () => void;

/**
 * The append-only, hash-chained event log. Every implementation (LMDB, memory, a networked one)
 * passes `test/contracts/event-log.contract.ts` unchanged.
 *
 * Guarantees:
 * - `append` is atomic for the batch: all events get consecutive seqs or none is written.
 * - seqs start at 1 and have no gaps or duplicates, even with several processes appending.
 * - appends are idempotent by event id: an id already in the log is returned as recorded, not re-added.
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
