import { setTimeout as delay } from 'node:timers/promises';
import { FactorlyError, messageOf } from '../base/errors.js';
import { BatchMirror } from './batch-mirror.js';
import { encodeBatch, type BatchAppended, type BatchStream, type StoredBatch } from './batch-stream.js';
import type { EventType } from './catalog.js';
import type { ChainBreak } from './chain-check.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
import { selectRange } from './memory-log.js';
import type { Projection, ProjectionView } from './projection.js';
import { ProjectionSet, type ProjectionSource } from './projection-set.js';
import { resolveConflict, sealBatch } from './append-batch.js';
import { UnsettledBatches } from './unsettled-batches.js';
import type { LogTree } from './transparency-tree.js';
import type { Inflight } from './writer.js';

export interface ReplicatedLogOptions {
  clock?: () => Date;
  /** How long an append (or catching up before it) keeps trying while the stream does not answer, in ms. */
  timeoutMs?: number;
}

/** Between two tries of a write the stream did not answer (a leader being elected, a reconnect). */
const RETRY_MS = 200;
/** How long a copy may lag behind the stream's last batch, while catching up, before it follows the stream anew. */
const STALLED_MS = 1000;

/**
 * The `EventLog` of several nodes sharing one `BatchStream`: the same envelope, chain and tree as
 * the local logs, each append one batch stored only if the stream has not moved since the batch was
 * sealed, so two nodes never fork the chain. When another node came first the batch is sealed again
 * on the new head, and a conditional append (`expectedSeq`) sees the events since: decided again by
 * its `onConflict`, or refused with `LOG_CONFLICT`, as on a single node. Each node keeps a copy of the
 * events (followed from the stream) that reads, projections and the tree are served from; its
 * projections are rebuilt from the stream when the process starts.
 */
export class ReplicatedEventLog implements EventLog {
  private readonly mirror: BatchMirror;
  private readonly projections = new ProjectionSet();
  private readonly listeners = new Set<(event: Recorded) => void>();
  private readonly clock: () => Date;
  private readonly timeoutMs: number;
  private readonly source: ProjectionSource;
  private started?: Promise<void>;
  private stopFollowing?: () => void;
  private followFailure?: unknown;
  /** This process's appends, one at a time: each seals on the head the one before it left. */
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly unsettled = new UnsettledBatches();

  constructor(
    private readonly stream: BatchStream,
    options: ReplicatedLogOptions = {},
  ) {
    this.mirror = new BatchMirror(stream.origin);
    this.clock = options.clock ?? (() => new Date());
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.source = {
      loadSnapshot: () => undefined,
      hashAt: (seq) => this.mirror.hashAt(seq),
      readRange: (from, to) => selectRange(this.mirror.events, { from, to }),
    };
  }

  append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<Recorded[]> {
    const run = this.writing.then(() => this.appendNow(events, options));
    this.writing = run.catch(() => undefined);
    return run;
  }

  async *read(range: ReadRange = {}): AsyncIterable<Recorded> {
    await this.start();
    yield* selectRange(this.mirror.events, range);
  }

  async readCall(callId: string): Promise<Recorded[]> {
    await this.start();
    return this.mirror.ofCall(callId);
  }

  async lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    await this.start();
    return this.mirror.lastOf(type);
  }

  async head(): Promise<LogHead> {
    await this.start();
    return this.mirror.head();
  }

  async tree(): Promise<LogTree> {
    await this.start();
    return this.mirror.tree();
  }

  /** The calls and sessions open now on every node, with the writer (process, host) that opened each. */
  async inflight(): Promise<Inflight> {
    await this.start();
    return this.mirror.inflight();
  }

  /** Where this copy stops short of the stream: a batch the stream lost, or one that does not carry on the chain. */
  async stoppedShort(): Promise<ChainBreak | undefined> {
    await this.start();
    return this.mirror.broken;
  }

  /** Brings this node's copy up to what the stream holds now (a read that must see every node's last write). */
  async sync(): Promise<void> {
    await this.start();
    await this.catchUp(Date.now() + this.timeoutMs);
  }

  project<S>(projection: Projection<S>): ProjectionView<S> {
    this.projections.register(projection as Projection<unknown>);
    const view = this.projections.view<S>(projection.name, () =>
      this.projections.catchUp(this.source, this.mirror.head().seq),
    );
    return { name: view.name, folded: view.folded, current: async () => (await this.start(), view.current()) };
  }

  async rebuild(progress?: (done: number, total: number) => void): Promise<RebuildReport> {
    await this.start();
    const head = this.mirror.head().seq;
    this.projections.forget();
    this.projections.catchUp(this.source, head);
    progress?.(head, head);
    return { events: head, projections: this.projections.names(), indexes: [] };
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    let next = fromSeq;
    let live = true;
    const deliver = (event: Recorded): void => {
      if (!live || event.seq < next) return;
      next = event.seq + 1;
      listener(event);
    };
    const replay = (): void => {
      for (const event of this.mirror.events.slice(Math.max(next, 1) - 1)) deliver(event);
    };
    replay();
    this.listeners.add(deliver);
    this.start().then(replay, () => undefined);
    return () => {
      live = false;
      this.listeners.delete(deliver);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    this.stopFollowing?.();
    this.listeners.clear();
    await this.stream.close();
  }

  private async appendNow(events: readonly NewEvent[], options: AppendOptions): Promise<Recorded[]> {
    if (this.closed)
      throw new FactorlyError('LOG_WRITE_FAILED', `cannot write the event log ${this.stream.origin}: it is closed`);
    await this.start();
    const deadline = Date.now() + this.timeoutMs;
    const closing = this.unsettled.closing(this.mirror);
    if (closing.length > 0) await this.write(closing, {}, deadline);
    return this.write(events, options, deadline);
  }

  private async write(events: readonly NewEvent[], options: AppendOptions, deadline: number): Promise<Recorded[]> {
    for (;;) {
      this.mirror.assertWritable();
      const head = this.mirror.head();
      // Events other nodes appended since: folded before the conflict handler decides against the projections.
      this.projections.catchUp(this.source, head.seq);
      const batch = resolveConflict(events, options, head, (seq) => this.mirror.events.slice(Math.max(seq, 1) - 1));
      const sealed = sealBatch(batch.events, batch.options, {
        head,
        findById: (id) => this.mirror.findById(id),
        now: this.clock(),
      });
      if (sealed.fresh.length === 0) return sealed.results;
      const after = this.mirror.position;
      // The batch's last chain hash names it: the same batch sent again is the same, any other is not.
      const last = sealed.fresh.at(-1)!.event;
      const outcome = await this.send(
        encodeBatch(sealed.fresh.map(({ stored }) => stored)),
        last.hash,
        after,
        deadline,
      ).catch((error: unknown) => {
        this.unsettled.add(sealed.fresh.map(({ event }) => event));
        throw error;
      });
      if ('conflict' in outcome || outcome.duplicate) {
        await this.catchUp(deadline);
        // An earlier try whose answer was lost (beyond the stream's duplicate window) may be the one stored.
        if (this.mirror.findById(last.id)?.hash === last.hash)
          return sealed.results.map((event) => this.mirror.findById(event.id) ?? event);
        continue;
      }
      const fresh = sealed.fresh.map(({ event }) => event);
      this.received({ position: outcome.position, payload: new Uint8Array() }, fresh, after);
      this.projections.apply(fresh);
      return sealed.results;
    }
  }

  /** One batch to the stream, tried again (same id, same position) while the stream does not answer. */
  private async send(payload: Uint8Array, id: string, after: number, deadline: number): Promise<BatchAppended> {
    for (;;) {
      try {
        return await this.stream.append(payload, id, after);
      } catch (error) {
        if (Date.now() >= deadline || this.closed) throw this.unanswered('append to', error);
        await delay(RETRY_MS);
      }
    }
  }

  /** Waits until this copy holds every batch the stream held when asked. */
  private async catchUp(deadline: number): Promise<void> {
    for (;;) {
      let behind: unknown;
      try {
        const last = await this.stream.last();
        const reached = this.mirror.reached(last);
        const wait = Math.min(Math.max(deadline - Date.now(), 0), STALLED_MS);
        if ((await Promise.race([reached.then(() => 'ok'), delay(wait, 'late', { ref: false })])) === 'ok') return;
        // Nothing more comes when the batch this copy needs next was deleted (the stream's last, say).
        if ((await this.stream.firstLost?.(this.mirror.position)) === this.mirror.position + 1) {
          this.mirror.lost(this.mirror.position + 1);
          return;
        }
        // A follower that stopped delivering without failing (its server went away): followed anew.
        this.follow();
        const why = this.followFailure === undefined ? '' : `: ${messageOf(this.followFailure)}`;
        behind = `this node's copy did not reach position ${last} of the stream (it holds ${this.mirror.position})${why}`;
      } catch (error) {
        behind = error;
      }
      if (Date.now() >= deadline || this.closed) throw this.unanswered('read', behind);
      await delay(RETRY_MS);
    }
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      this.follow();
      await this.catchUp(Date.now() + this.timeoutMs);
    })();
    this.started.catch(() => {
      // A stream that could not be reached at start is tried again by the next call.
      this.started = undefined;
    });
    return this.started;
  }

  /** Follows the stream from this copy's position; after a failure, again (a reconnect, a new leader). */
  private follow(): void {
    this.stopFollowing?.();
    this.stopFollowing = this.stream.follow(
      this.mirror.position,
      (batch) => this.received(batch),
      (error) => {
        this.followFailure = error;
        if (!this.closed) setTimeout(() => this.follow(), RETRY_MS).unref();
      },
    );
  }

  /** A batch this node followed, or one it wrote itself (applied at once when nothing came in between). */
  private received(batch: StoredBatch, written?: Recorded[], after?: number): void {
    if (written && this.mirror.position !== after) return;
    const events = this.mirror.apply(batch.position, written ?? batch.payload);
    for (const event of events) for (const listener of this.listeners) listener(event);
  }

  private unanswered(what: string, error: unknown): FactorlyError {
    if (FactorlyError.isInstance(error)) return error;
    const seconds = Math.round(this.timeoutMs / 100) / 10;
    return new FactorlyError(
      'LOG_WRITE_FAILED',
      `cannot ${what} the event log ${this.stream.origin}: ${messageOf(error)} (no answer within ${seconds}s: is the stream reachable, with a quorum of its servers?)`,
      { cause: error },
    );
  }
}
