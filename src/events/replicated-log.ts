import { setTimeout as delay } from 'node:timers/promises';
import { FactorlyError } from '../base/errors.js';
import { BatchMirror } from './batch-mirror.js';
import type { BatchStream } from './batch-stream.js';
import { CallDeadlines, queuedUntil, RETRY_MS, within } from './call-deadlines.js';
import type { EventType } from './catalog.js';
import type { ChainBreak } from './chain-check.js';
import type { NewEvent, Recorded } from './envelope.js';
import { EventCache } from './event-cache.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
import type { TreeEdge } from './log-folds.js';
import type { Projection, ProjectionView } from './projection.js';
import type { StoredSnapshot } from './snapshot-digest.js';
import { ReplicatedFolds } from './replicated-folds.js';
import { BatchWriter } from './replicated-writes.js';
import { MemorySideStore, patientSide } from './side-store.js';
import { StreamReader } from './stream-reader.js';
import { findTip } from './stream-tip.js';
import { pastThenLive } from './live-events.js';
import { EdgeOnlyTree } from './tree-edge.js';
import { rebuiltTree } from './tree-rebuild.js';
import type { LogTree } from './transparency-tree.js';
import type { Inflight } from './writer.js';
import type { ReplicatedLogOptions } from './replicated-log-options.js';

export type { ReplicatedLogOptions } from './replicated-log-options.js';

/** A projection whose unsaved events number at least this many gets a snapshot when a node closes. */
const SAVE_AT_CLOSE_AFTER = 32;
/** A node keeps the call pages up once it has run this long (ms): a command that records a call and ends never reads them. */
const KEEP_CALLS_AFTER_MS = 30_000;
/** A log no longer than this gets a whole tree (proofs and all) from the events at hand, when they all are. */
const WHOLE_TREE_UP_TO = 4_096;

/**
 * The `EventLog` of several nodes sharing one `BatchStream`: the same envelope, chain and tree as
 * the local logs, each append one batch stored only if the stream has not moved since the batch was
 * sealed, so two nodes never fork the chain (see `BatchWriter`). A node does not hold the stream: it
 * starts at its end (`findTip`), loads its projections from the snapshots kept beside the stream
 * and folds only what came after them, and reads older events on demand (`StreamReader`), keeping
 * a bounded cache: its memory and its first call cost the same on a long stream as on a short one.
 */
export class ReplicatedEventLog implements EventLog {
  private readonly cache = new EventCache();
  private readonly mirror: BatchMirror;
  private readonly reader: StreamReader;
  private readonly folds: ReplicatedFolds;
  private readonly writer: BatchWriter;
  private readonly deadlines: CallDeadlines;
  private readonly listeners = new Set<(event: Recorded) => void>();
  private readonly timeoutMs: number;
  private readonly keepsSnapshots: boolean;
  private started?: Promise<void>;
  private stopFollowing?: () => void;
  private followFailure?: unknown;
  /** This process's appends, one at a time: each seals on the head the one before it left. */
  private writing: Promise<unknown> = Promise.resolve();
  private upkeep: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly startedAt = Date.now();

  constructor(
    private readonly stream: BatchStream,
    options: ReplicatedLogOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.keepsSnapshots = options.snapshots !== false;
    this.mirror = new BatchMirror(stream.origin, this.cache);
    this.reader = new StreamReader(stream, this.cache, () => this.mirror.tip(), this.timeoutMs);
    this.folds = new ReplicatedFolds(patientSide(stream.side ?? new MemorySideStore(), this.timeoutMs), this.reader);
    this.deadlines = new CallDeadlines(this.timeoutMs);
    this.writer = new BatchWriter({
      stream,
      mirror: this.mirror,
      reader: this.reader,
      folds: this.folds,
      clock: options.clock ?? (() => new Date()),
      ready: (deadline) => this.ready(deadline),
      follow: () => this.follow(),
      followFailure: () => this.followFailure,
      stored: (events) => this.announce(events),
      unanswered: (what, error) => this.unanswered(what, error),
      closed: () => this.closed,
    });
  }

  append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<Recorded[]> {
    const since = Date.now();
    return this.queued(events, options, this.deadlines.deadline(events, since), true).finally(() =>
      this.deadlines.settle(events, since),
    );
  }

  /** One append after this node's others; a caller's is refused once closed, and starts the upkeep after it. */
  private queued(events: readonly NewEvent[], options: AppendOptions, deadline: number, ofCaller: boolean) {
    const since = Date.now();
    const late = (): FactorlyError =>
      this.deadlines.late(`append to the event log ${this.stream.origin}`, deadline - since);
    const { result, done } = queuedUntil(this.writing, deadline, late, async () => {
      if (ofCaller && this.closed)
        throw new FactorlyError('LOG_WRITE_FAILED', `cannot write the event log ${this.stream.origin}: it is closed`);
      const written = await this.writer.append(events, options, deadline, late);
      if (ofCaller) this.keepSnapshots();
      if (ofCaller) this.keepUp();
      return written;
    });
    this.writing = done.catch(() => undefined);
    return result;
  }

  /**
   * A node that writes, or whose projections are used, keeps snapshots beside the stream, each after
   * the record of its digest (appended after its other appends, also while it closes). One that only
   * reads (a migration's source) or was opened without snapshots (`logs verify`, a copy's target)
   * keeps none, so it writes nothing of its own.
   */
  private keepSnapshots(): void {
    if (this.stream.side && this.keepsSnapshots)
      this.folds.record ??= (events) => this.queued(events, {}, Date.now() + this.timeoutMs, false);
  }

  async *read(range: ReadRange = {}): AsyncIterable<Recorded> {
    await this.ready();
    const head = this.mirror.head().seq;
    const from = Math.max(range.from ?? 1, 1);
    const to = Math.min(range.to ?? head, head);
    const events = range.reverse ? this.reader.backwards(to, from) : this.reader.events(from, to);
    let left = range.limit ?? Number.POSITIVE_INFINITY;
    for await (const event of events) {
      if (left-- <= 0) return;
      yield event;
    }
  }

  async readCall(callId: string): Promise<Recorded[]> {
    await this.atHead();
    return this.writer.callEvents(callId);
  }

  async lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    await this.atHead();
    const seq = this.folds.folded<Map<string, number>>('log.latest').state.get(type);
    const event = seq === undefined ? undefined : await this.reader.eventAt(seq);
    return event?.type === type ? (event as Recorded<T>) : undefined;
  }

  async head(): Promise<LogHead> {
    await this.ready();
    return this.mirror.head();
  }

  async tree(): Promise<LogTree> {
    await this.atHead();
    const edge = this.folds.folded<TreeEdge>('log.tree').state;
    const events = edge.size <= WHOLE_TREE_UP_TO ? this.cache.range(1, edge.size) : undefined;
    if (!events) return new EdgeOnlyTree({ size: edge.size, peaks: [...edge.peaks] }, this.stream.origin);
    return rebuiltTree(each(events), this.stream.origin);
  }

  /** The calls and sessions open now on every node, with the writer (process, host) that opened each. */
  async inflight(): Promise<Inflight> {
    await this.atHead();
    return this.folds.inflight((id) => this.writer.named(id));
  }

  /** Where this node's reads stop short of the stream: a batch the stream lost, or one that does not carry on the chain. */
  async stoppedShort(): Promise<ChainBreak | undefined> {
    await this.ready();
    const found = [this.mirror.broken, this.reader.broken].filter((broken) => broken !== undefined);
    return found.sort((a, b) => a.seq - b.seq)[0];
  }

  /** Brings this node up to what the stream holds now (a read that must see every node's last write). */
  async sync(): Promise<void> {
    await this.ready();
    await this.writer.catchUp(Date.now() + this.timeoutMs);
  }

  project<S>(projection: Projection<S>): ProjectionView<S> {
    this.folds.register(projection as Projection<unknown>);
    this.keepSnapshots();
    const { name } = projection;
    return {
      name,
      folded: () => this.folds.folded<S>(name),
      current: async () => (await this.atHead(), this.folds.folded<S>(name)),
    };
  }

  async rebuild(progress?: (done: number, total: number) => void): Promise<RebuildReport> {
    await this.ready();
    const head = this.mirror.head().seq;
    const projections = await this.folds.rebuild(head, progress);
    progress?.(head, head);
    return { events: head, projections, indexes: [] };
  }

  /** The snapshots beside the stream of `names` (default: every projection registered here, the log's own folds included). */
  async storedSnapshots(names?: readonly string[]): Promise<{ name: string; snapshot?: StoredSnapshot }[]> {
    await this.ready();
    return this.folds.stored(names ?? this.folds.projections.names());
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    return pastThenLive(this.listeners, (from) => this.read({ from }), fromSeq, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    // A node leaves its folds beside the stream, so the next one starts where it stopped (within
    // the timeout: a stream that went away does not hold the process).
    const saved = this.upkeep.then(() => this.folds.save(SAVE_AT_CLOSE_AFTER));
    await within(saved, Date.now() + this.timeoutMs, () => this.unanswered('write beside', 'no answer')).catch(
      () => undefined,
    );
    this.stopFollowing?.();
    this.listeners.clear();
    await this.stream.close();
  }

  /** Started, and every fold at the head this node knows. */
  private async atHead(): Promise<void> {
    await this.ready();
    await this.folds.upTo(this.mirror.head().seq);
  }

  /** Joins the stream once (`findTip`), tried again until `deadline` while it does not answer. */
  private async ready(deadline = Date.now() + this.timeoutMs): Promise<void> {
    // What the stream answered last (connection refused, say) says more than the deadline passing.
    let last: unknown = 'no answer in time';
    for (;;) {
      this.started ??= this.join();
      try {
        await within(this.started, deadline, () => this.unanswered('read', last));
        return;
      } catch (error) {
        last = error;
        // The stream's own verdict (a setting it refuses) is final; anything else may pass.
        if (FactorlyError.isInstance(error) || Date.now() >= deadline || this.closed)
          throw this.unanswered('read', error);
        await delay(RETRY_MS);
      }
    }
  }

  private join(): Promise<void> {
    const joined = (async () => {
      const found = await findTip(this.stream, this.cache);
      this.mirror.startAt(found.tip, found.pending, found.broken);
      this.follow();
    })();
    // A stream that could not be reached is tried again by the next call.
    joined.catch(() => (this.started = undefined));
    return joined;
  }

  /** Follows the stream from this node's position; after a failure, again (a reconnect, a new leader). */
  private follow(): void {
    this.stopFollowing?.();
    this.stopFollowing = this.stream.follow(
      this.mirror.position,
      (message) => this.announce(this.mirror.apply(message)),
      (error) => {
        this.followFailure = error;
        if (!this.closed) setTimeout(() => this.follow(), RETRY_MS).unref();
      },
    );
  }

  private announce(events: readonly Recorded[]): void {
    for (const event of events) for (const listener of this.listeners) listener(event);
  }

  /**
   * After a write, in the background: snapshots and lookups that are due, beside the stream; on a
   * node that has run a while (serving, not one command), the call pages too.
   */
  private keepUp(): void {
    const calls = Date.now() - this.startedAt >= KEEP_CALLS_AFTER_MS;
    this.upkeep = this.upkeep
      .then(async () => (calls ? this.folds.keepCalls(this.mirror.head().seq) : undefined))
      .then(() => this.folds.save())
      .catch(() => undefined);
  }

  private unanswered(what: string, error: unknown): FactorlyError {
    return this.deadlines.unanswered(`${what} the event log ${this.stream.origin}`, error);
  }
}

async function* each(events: readonly Recorded[]): AsyncIterable<Recorded> {
  yield* events;
}
