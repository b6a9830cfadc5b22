import type { ChainBreak } from './chain-check.js';
import { FactorlyError } from '../base/errors.js';
import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { EventIndex, IndexLookup } from './event-index.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
import type { Projection, ProjectionView } from './projection.js';
import type { LogTree } from './transparency-tree.js';
import type { Inflight } from './writer.js';

/**
 * An `EventLog` that hands every operation to another one: the base of the wrappers that change one
 * thing about a log (publishing what it stored, stamping this process as its writer). The optional
 * parts answer as a log without them would.
 */
export class DelegatingEventLog implements EventLog {
  constructor(protected readonly inner: EventLog) {
    // A log that keeps nothing in flight stays one: not one whose calls are all closed (the audit
    // view then finds running calls in the events).
    if (!inner.inflight) Object.defineProperty(this, 'inflight', { value: undefined });
  }

  append(events: readonly NewEvent[], options?: AppendOptions): Promise<Recorded[]> {
    return this.inner.append(events, options);
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

  get location(): string | undefined {
    return this.inner.location;
  }

  attestedHead(): Promise<LogHead | undefined> {
    return this.inner.attestedHead?.() ?? Promise.resolve(undefined);
  }

  stoppedShort(): Promise<ChainBreak | undefined> {
    return this.inner.stoppedShort?.() ?? Promise.resolve(undefined);
  }

  project<S>(projection: Projection<S>): ProjectionView<S> {
    return this.inner.project(projection);
  }

  index(index: EventIndex): void {
    this.inner.index?.(index);
  }

  lookup(name: string, key: string, before?: number): IndexLookup {
    // An index that covers nothing: the reader reads the log itself.
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

  tree(): Promise<LogTree> {
    if (!this.inner.tree)
      return Promise.reject(new FactorlyError('NOT_SUPPORTED', 'this event log keeps no Merkle tree'));
    return this.inner.tree();
  }

  inflight(): Promise<Inflight> {
    return this.inner.inflight?.() ?? Promise.resolve({ calls: [], sessions: [], writers: new Map() });
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    return this.inner.subscribe(fromSeq, listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
