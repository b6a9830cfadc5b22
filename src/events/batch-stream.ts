import type { SideStore } from './side-store.js';

/**
 * A shared, ordered stream of messages that several nodes append to (a NATS JetStream subject, or
 * the in-memory one of the tests): the transport under `ReplicatedEventLog`. A message holds one
 * batch (the events of one `append`), or, for a batch larger than one message may be, a fragment of
 * it or its commit (see `batch-fragments.ts`). Positions grow by one per message, and `last` is the
 * last message's.
 */
export interface BatchStream {
  /** Names the log in checkpoints: the same on every node that shares the stream. */
  readonly origin: string;
  /** The position of the last message now (0: none yet), asked of the stream itself, not of a copy. */
  last(): Promise<number>;
  /**
   * Stores `payload` after `after`, only if `after` is still the last position. `id` makes it
   * idempotent: a message with the same id sent again is answered as the one stored (`duplicate`).
   * `conflict` when another message came first. Throws when the stream cannot say (no quorum, no connection).
   */
  append(payload: Uint8Array, id: string, after: number): Promise<BatchAppended>;
  /**
   * Calls `deliver` for every message after `after`, in order, then for each new one, from any node,
   * reconnecting by itself; `failed` hears what stops it for good. Returns the stop.
   */
  follow(after: number, deliver: (batch: StoredBatch) => void, failed: (error: unknown) => void): () => void;
  /**
   * The message at `position`, asked of the stream itself (never of a copy that may lag behind);
   * undefined when the stream holds none there (past the last, or deleted).
   */
  get(position: number): Promise<StoredBatch | undefined>;
  /**
   * The messages from `from` up to `to` (inclusive), in order, read as the caller takes them (a
   * long range is never held whole); a position the stream no longer holds is left out.
   */
  read(from: number, to: number): AsyncIterable<StoredBatch>;
  /** The most bytes one message's payload may hold (NATS: the server's `max_payload`, less the headers sent with it). */
  maxPayload(): Promise<number>;
  /** Where the log keeps what it derives beside the stream; without one, a node folds the stream from its start. */
  readonly side?: SideStore;
  /**
   * The first position after `after`, up to the last, that the stream assigned but no longer holds
   * (a message deleted, a purge), when the stream can tell; undefined when every one is still there.
   * A stream that keeps every message for good may leave it out.
   */
  firstLost?(after: number): Promise<number | undefined>;
  close(): Promise<void>;
}

export type BatchAppended = { position: number; duplicate: boolean } | { conflict: true };

export interface StoredBatch {
  position: number;
  payload: Uint8Array;
}

/** A batch as it travels: the stored envelopes (canonical JSON, hash included) as one JSON array. */
export function encodeBatch(stored: readonly string[]): Uint8Array {
  return Buffer.from(`[${stored.join(',')}]`, 'utf8');
}
