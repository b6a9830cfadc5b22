import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, Unsubscribe } from './log.js';
import type { Projection, ProjectionView } from './projection.js';
import { ProjectionSet, type ProjectionSource } from './projection-set.js';
import { callIdOf, EMPTY_HEAD, resolveConflict, sealBatch } from './append-batch.js';
import { CompactRange } from './merkle.js';
import { MemoryTreeNodes, newOrigin, TransparencyTree, type LogTree } from './transparency-tree.js';

/**
 * The reference implementation of `EventLog`: everything in memory, for unit tests and dry runs.
 * It is never the log a user's calls are recorded in.
 */
export class MemoryEventLog implements EventLog {
  private readonly events: Recorded[] = [];
  private readonly byId = new Map<string, Recorded>();
  private readonly listeners = new Set<(event: Recorded) => void>();
  /** Folded as events are appended; nothing to snapshot: the events themselves are gone with the process. */
  private readonly projections = new ProjectionSet();
  private readonly source: ProjectionSource = {
    loadSnapshot: () => undefined,
    hashAt: () => undefined,
    readRange: (from, to) => selectRange(this.events, { from, to }),
  };
  private readonly nodes = new MemoryTreeNodes();
  private readonly frontier = new CompactRange();
  private readonly origin = newOrigin();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<Recorded[]> {
    const head = this.headNow();
    this.projections.catchUp(this.source, head.seq);
    const batch = resolveConflict(events, options, head, (seq) => this.events.slice(Math.max(seq, 1) - 1));
    const { results, fresh } = sealBatch(batch.events, batch.options, {
      head,
      findById: (id) => this.byId.get(id),
      now: this.clock(),
    });
    const written = fresh.map(({ event }) => event);
    for (const event of written) {
      this.events.push(event);
      this.byId.set(event.id, event);
    }
    this.projections.apply(written);
    this.treeAt(this.frontier.size).extend(
      this.frontier,
      written.map((event) => event.hash),
    );
    for (const event of written) for (const listener of this.listeners) listener(event);
    return results;
  }

  project<S>(projection: Projection<S>): ProjectionView<S> {
    this.projections.register(projection as Projection<unknown>);
    return this.projections.view<S>(projection.name, () => this.projections.catchUp(this.source, this.events.length));
  }

  async *read(range: ReadRange = {}): AsyncIterable<Recorded> {
    yield* selectRange(this.events, range);
  }

  async readCall(callId: string): Promise<Recorded[]> {
    return this.events.filter((event) => callIdOf(event) === callId);
  }

  async lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    return this.events.findLast((event) => event.type === type) as Recorded<T> | undefined;
  }

  async head(): Promise<LogHead> {
    return this.headNow();
  }

  async tree(): Promise<LogTree> {
    return this.treeAt(this.events.length);
  }

  private treeAt(size: number): TransparencyTree {
    return new TransparencyTree(this.nodes, (seq) => this.events[seq - 1]?.hash, { size, origin: this.origin });
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    for (const event of this.events) if (event.seq >= fromSeq) listener(event);
    const live = (event: Recorded): void => {
      if (event.seq >= fromSeq) listener(event);
    };
    this.listeners.add(live);
    return () => this.listeners.delete(live);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private headNow(): LogHead {
    const last = this.events.at(-1);
    return last ? { seq: last.seq, hash: last.hash } : EMPTY_HEAD;
  }
}

/** Applies a `ReadRange` to events held in seq order (seq n sits at index n-1). */
export function selectRange(events: readonly Recorded[], range: ReadRange): Recorded[] {
  const from = Math.max(range.from ?? 1, 1);
  const to = Math.min(range.to ?? Number.MAX_SAFE_INTEGER, events.length);
  const slice = events.slice(from - 1, Math.max(to, from - 1));
  if (range.reverse) slice.reverse();
  return range.limit === undefined ? slice : slice.slice(0, range.limit);
}
