import { FactorlyError } from '../base/errors.js';
import { checkedBatch, deletedBatch } from './batch-events.js';
import { FragmentRuns } from './batch-fragments.js';
import type { StoredBatch } from './batch-stream.js';
import type { ChainBreak } from './chain-check.js';
import type { Recorded } from './envelope.js';
import type { EventCache } from './event-cache.js';
import type { LogHead } from './log.js';
import { EMPTY_HEAD } from './append-batch.js';
import type { StreamTip } from './stream-tip.js';

/**
 * One node's hold on the end of a shared stream: the last position it has taken in (fragments
 * included: the position an append names as `after`), the head of the chain there, and the new
 * batches as they come, in stream order (what the node wrote itself and what it follows from the
 * others). Each batch is checked as it arrives: its events must carry on the chain (seq, prevHash)
 * and hash to what they say, or the node stops there (`broken`) and the log refuses to write on it.
 * The events themselves go to the node's bounded cache; older ones are read from the stream.
 */
export class BatchMirror {
  /** The last stream position taken in. */
  position = 0;
  /** Where the node stopped: a batch that does not carry on the chain, or one the stream lost. */
  broken?: ChainBreak;
  private last: LogHead = EMPTY_HEAD;
  private runs = new FragmentRuns();
  private readonly waiters: { position: number; resolve: () => void }[] = [];

  constructor(
    readonly origin: string,
    private readonly cache: EventCache,
  ) {}

  /** Where the node starts: the stream's end as found (`tip`), the fragments after its last batch whose commit may still come, and any break found on the way. */
  startAt(tip: StreamTip, pending: readonly StoredBatch[], broken?: ChainBreak): void {
    this.position = tip.position;
    this.last = tip.head;
    this.broken = broken;
    this.runs = new FragmentRuns();
    for (const message of pending) this.runs.take(message.position, message.payload);
    this.release(broken !== undefined);
  }

  head(): LogHead {
    return this.last;
  }

  tip(): StreamTip {
    return { position: this.position, head: this.last };
  }

  /** Takes in the message at `position` (once: an earlier or repeated position is skipped); returns the events it completes. */
  apply(message: StoredBatch): Recorded[] {
    const { position } = message;
    if (position <= this.position || this.broken) return [];
    // Positions are consecutive (each append names the one before it): a skipped one was deleted.
    if (position > this.position + 1) {
      this.lost(this.position + 1);
      return [];
    }
    this.position = position;
    const taken = this.runs.take(position, message.payload);
    if (taken === undefined) {
      this.release();
      return [];
    }
    if ('corrupt' in taken)
      return this.stop({
        seq: this.last.seq + 1,
        kind: 'corrupt',
        reason: `${taken.corrupt}: the log stops before it`,
      });
    const checked = checkedBatch(position, taken.payload, this.last);
    if ('broken' in checked) return this.stop(checked.broken);
    this.accept(taken.from, position, checked.events, taken.payload.length);
    return checked.events;
  }

  /** A batch this node stored itself at `from`..`to`, taken in at once when nothing came in between (`after` is still its position). */
  applyWritten(after: number, to: number, events: Recorded[], bytes: number): Recorded[] {
    if (this.position !== after || this.broken) return [];
    this.runs = new FragmentRuns();
    this.accept(after + 1, to, events, bytes);
    return events;
  }

  /** Resolves once the message at `position` (or a later one) is taken in, or the node stopped short of it (`broken`). */
  reached(position: number): Promise<void> {
    if (this.position >= position || this.broken) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  /** The message at `position`, the next one this node needs, is gone from the stream: the node stops here. */
  lost(position: number): void {
    if (this.broken || position !== this.position + 1) return;
    this.broken = deletedBatch(position, this.last.seq);
    this.release(true);
  }

  /** Refuses a write on a node that stopped at a batch that does not carry on the chain. */
  assertWritable(): void {
    if (this.broken) throw new FactorlyError('LOG_CORRUPT', this.broken.reason);
  }

  private stop(broken: ChainBreak): Recorded[] {
    this.broken = broken;
    this.release(true);
    return [];
  }

  private accept(from: number, to: number, events: Recorded[], bytes: number): void {
    this.cache.add({ from, to, firstSeq: events[0]!.seq, lastSeq: events.at(-1)!.seq }, events, bytes);
    this.last = { seq: events.at(-1)!.seq, hash: events.at(-1)!.hash };
    this.position = to;
    this.release();
  }

  private release(all = false): void {
    for (let i = this.waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.waiters[i]!;
      if (all || waiter.position <= this.position) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }
}
