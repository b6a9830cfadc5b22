import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { EventBus } from './bus.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, Unsubscribe } from './log.js';
import type { LogTree } from './transparency-tree.js';

/** Wraps any `EventLog` so that every append is published on the bus once it is stored (log first, bus second). */
export class PublishingEventLog implements EventLog {
  constructor(
    private readonly inner: EventLog,
    private readonly bus: EventBus,
  ) {}

  async append(events: readonly NewEvent[], options?: AppendOptions): Promise<Recorded[]> {
    const recorded = await this.inner.append(events, options);
    this.bus.publish(recorded);
    return recorded;
  }

  read(range?: ReadRange): AsyncIterable<Recorded> {
    return this.inner.read(range);
  }

  readCall(callId: string): Promise<Recorded[]> {
    return this.inner.readCall(callId);
  }

  lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    return this.inner.lastOf(type);
  }

  head(): Promise<LogHead> {
    return this.inner.head();
  }

  attestedHead(): Promise<LogHead | undefined> {
    return this.inner.attestedHead?.() ?? Promise.resolve(undefined);
  }

  tree(): Promise<LogTree> {
    if (!this.inner.tree) return Promise.reject(new Error('this event log keeps no Merkle tree'));
    return this.inner.tree();
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    return this.inner.subscribe(fromSeq, listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
