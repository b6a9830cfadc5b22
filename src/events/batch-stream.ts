/**
 * A shared, ordered stream of batches that several nodes append to (a NATS JetStream subject, or
 * the in-memory one of the tests): the transport under `ReplicatedEventLog`. Every position holds
 * one batch (the events of one `append`); positions grow, and `last` is the last batch's.
 */
export interface BatchStream {
  /** Names the log in checkpoints: the same on every node that shares the stream. */
  readonly origin: string;
  /** The position of the last batch now (0: none yet), asked of the stream itself, not of a copy. */
  last(): Promise<number>;
  /**
   * Stores `payload` after `after`, only if `after` is still the last position. `id` makes it
   * idempotent: a batch with the same id sent again is answered as the one stored (`duplicate`).
   * `conflict` when another batch came first. Throws when the stream cannot say (no quorum, no connection).
   */
  append(payload: Uint8Array, id: string, after: number): Promise<BatchAppended>;
  /**
   * Calls `deliver` for every batch after `after`, in order, then for each new one, from any node,
   * reconnecting by itself; `failed` hears what stops it for good. Returns the stop.
   */
  follow(after: number, deliver: (batch: StoredBatch) => void, failed: (error: unknown) => void): () => void;
  /**
   * The first position after `after`, up to the last, that the stream assigned but no longer holds
   * (a message deleted, a purge), when the stream can tell; undefined when every one is still there.
   * A stream that keeps every batch for good may leave it out.
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
