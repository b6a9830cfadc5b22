import type { RootDatabase } from 'lmdb';
import type { NewEvent } from './envelope.js';
import { guardPendingCommit } from './lmdb-faults.js';
import type { Durability } from './log.js';
import { endsCall } from './call-events.js';

/**
 * How an append's write transaction is committed, by one of two ways lmdb-js offers:
 *
 * - batched: `transaction()` hands the write to lmdb-js's writer thread, which runs every write
 *   queued meanwhile in one transaction and one fsync (group commit), at the price of hand-offs
 *   between the threads before the append resolves (≈0.15 ms at p50 and more in the tail on the
 *   bench's 2-core machine, see bench/README.md);
 * - at once: `transactionSync()` writes and commits on this thread; its commit fsyncs the data and
 *   writes the meta page synchronously before it returns (a transaction without MDB_NOSYNC), so the
 *   append is as durable as a batched one after `flushed`.
 *
 * An append is committed at once only when it has nobody to share a commit with: durability
 * `fsync` (each append waits for its fsync anyway), no batched write of this process pending, and
 * at most one call of this process open (the appending call's own). Concurrent calls keep sharing
 * commits; `durability: commit` stays batched (it does not wait for the fsync, which a commit at
 * once would make it wait for).
 */
export class LmdbCommits {
  /** Calls whose request this process appended and whose end it has not. */
  private openCalls = 0;
  /** Batched writes of this process not settled yet. */
  private batched = 0;

  constructor(
    private readonly root: RootDatabase,
    private readonly durability: Durability,
  ) {}

  /**
   * Runs `write` in a write transaction and resolves once the append is as durable as `durability`
   * says; `committed` is told the result as soon as the transaction is committed.
   */
  async commit<T>(write: () => T, events: readonly NewEvent[], committed: (result: T) => void): Promise<T> {
    let result: T;
    if (this.alone()) {
      result = this.root.transactionSync(write);
      committed(result);
    } else result = await this.batch(write, committed);
    this.count(events);
    return result;
  }

  private alone(): boolean {
    return this.durability === 'fsync' && this.batched === 0 && this.openCalls <= 1;
  }

  private async batch<T>(write: () => T, committed: (result: T) => void): Promise<T> {
    this.batched += 1;
    try {
      const written = this.root.transaction(write);
      guardPendingCommit(this.root);
      const result = await written;
      committed(result);
      // lmdb-js resolves a transaction once it is committed; the fsync overlaps the next one.
      if (this.durability === 'fsync') await this.root.flushed;
      return result;
    } finally {
      this.batched -= 1;
    }
  }

  private count(events: readonly NewEvent[]): void {
    for (const { type } of events) {
      if (type === 'call.requested') this.openCalls += 1;
      else if (endsCall(type) && this.openCalls > 0) this.openCalls -= 1;
    }
  }
}
