import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { EventBus } from './bus.js';
import type { EventIndex, IndexLookup } from './event-index.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
import type { Projection, ProjectionView } from './projection.js';

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

  project<S>(projection: Projection<S>): ProjectionView<S> {
    return this.inner.project(projection);
  }

  index(index: EventIndex): void {
    this.inner.index?.(index);
  }

  lookup(name: string, key: string, before?: number): IndexLookup {
    if (!this.inner.lookup) return { seqs: [], covered: 0 };
    return this.inner.lookup(name, key, before);
  }

  indexKeys(name: string): string[] {
    return this.inner.indexKeys?.(name) ?? [];
  }

  rebuild(progress?: (done: number, total: number) => void): Promise<RebuildReport> {
    if (!this.inner.rebuild) return Promise.resolve({ events: 0, projections: [], indexes: [] });
    return this.inner.rebuild(progress);
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    return this.inner.subscribe(fromSeq, listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
