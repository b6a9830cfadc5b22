import type { BatchAppended, BatchStream, StoredBatch } from '../../src/events/batch-stream.js';
import { MemorySideStore } from '../../src/events/side-store.js';

/** Batches held in memory, shared by every `MemoryBatchStream.node()`: several nodes on one stream, in one process. */
export class MemoryBatchStream {
  readonly batches: (StoredBatch & { id: string })[] = [];
  /** What the nodes keep beside the stream (snapshots, lookups), shared like the stream. */
  readonly side = new MemorySideStore();
  private readonly followers = new Set<(batch: StoredBatch) => void>();
  /** Throws from `append` while set (a stream without quorum). */
  down = false;

  /** `maxPayload`: the most bytes one message may hold (small ones make every batch travel in fragments). */
  constructor(private readonly maxPayload = 1024 * 1024) {}

  node(origin = 'memory/stream'): BatchStream {
    return {
      origin,
      last: async () => this.lastPosition(),
      append: async (payload, id, after) => this.append(payload, id, after),
      follow: (after, deliver) => {
        const live = (batch: StoredBatch): void => {
          if (batch.position > after) queueMicrotask(() => deliver(batch));
        };
        for (const batch of this.batches) live(batch);
        this.followers.add(live);
        return () => this.followers.delete(live);
      },
      get: async (position) => this.copy(this.batches[position - 1]),
      read: (from, to) => this.read(from, to),
      maxPayload: async () => this.maxPayload,
      side: this.side,
      close: async () => undefined,
    };
  }

  private async *read(from: number, to: number): AsyncIterable<StoredBatch> {
    for (let position = Math.max(from, 1); position <= Math.min(to, this.batches.length); position += 1)
      yield this.copy(this.batches[position - 1])!;
  }

  private copy(batch: StoredBatch | undefined): StoredBatch | undefined {
    return batch && { position: batch.position, payload: batch.payload };
  }

  private lastPosition(): number {
    if (this.down) throw new Error('no quorum');
    return this.batches.at(-1)?.position ?? 0;
  }

  private append(payload: Uint8Array, id: string, after: number): BatchAppended {
    const last = this.lastPosition();
    const same = this.batches.find((batch) => batch.id === id);
    if (same) return { position: same.position, duplicate: true };
    if (after !== last) return { conflict: true };
    if (payload.length > this.maxPayload)
      throw new Error(`a message of ${payload.length} bytes is more than the stream takes (${this.maxPayload})`);
    const batch = { position: last + 1, payload, id };
    this.batches.push(batch);
    for (const follower of this.followers) follower(batch);
    return { position: batch.position, duplicate: false };
  }
}
