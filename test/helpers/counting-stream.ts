import type { BatchStream, StoredBatch } from '../../src/events/batch-stream.js';

/** A stream as it is (any transport), counting the messages a node reads from it: one by position, and in ranges. */
export function countingStream(inner: BatchStream): { stream: BatchStream; read: { messages: number } } {
  const read = { messages: 0 };
  const stream: BatchStream = {
    origin: inner.origin,
    side: inner.side,
    last: () => inner.last(),
    append: (payload, id, after) => inner.append(payload, id, after),
    follow: (after, deliver, failed) => inner.follow(after, deliver, failed),
    get: async (position) => {
      read.messages += 1;
      return inner.get(position);
    },
    read: async function* (from: number, to: number): AsyncIterable<StoredBatch> {
      for await (const message of inner.read(from, to)) {
        read.messages += 1;
        yield message;
      }
    },
    maxPayload: () => inner.maxPayload(),
    firstLost: inner.firstLost && ((after) => inner.firstLost!(after)),
    close: () => inner.close(),
  };
  return { stream, read };
}
