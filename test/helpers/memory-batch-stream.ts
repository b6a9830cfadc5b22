import type { BatchAppended, BatchStream, StoredBatch } from '../../src/events/batch-stream.js';

/** Batches held in memory, shared by every `MemoryBatchStream.node()`: several nodes on one stream, in one process. */
export class MemoryBatchStream {
  readonly batches: (StoredBatch & { id: string })[] = [];
  private readonly followers = new Set<(batch: StoredBatch) => void>();
  /** Throws from `append` while set (a stream without quorum). */
  down = false;

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
      close: async () => undefined,
    };
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
    const batch = { position: last + 1, payload, id };
    this.batches.push(batch);
    for (const follower of this.followers) follower(batch);
    return { position: batch.position, duplicate: false };
  }
}
