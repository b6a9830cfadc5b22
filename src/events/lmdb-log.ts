import type { RootDatabase } from 'lmdb';
import type { EventType } from './catalog.js';
import { GENESIS_HASH, type NewEvent, type Recorded } from './envelope.js';
import type { EventIndex, IndexLookup } from './event-index.js';
import { LmdbDerived } from './lmdb-derived.js';
import { checkedLookup } from './lmdb-index-reads.js';
import { rebuildAll } from './lmdb-rebuild.js';
import { openLogRoot } from './lmdb-env.js';
import { LmdbCommits } from './lmdb-commit.js';
import { closeRoot, commitFailure } from './lmdb-faults.js';
import { checkLmdbFile } from './lmdb-file-check.js';
import { LmdbInflight, writerEventId } from './lmdb-inflight.js';
import { decode, LmdbEvents } from './lmdb-events.js';
import { LmdbTree, treeAtHead } from './lmdb-tree.js';
import type { AppendOptions, Durability, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
import type { Projection, ProjectionView } from './projection.js';
import { ProjectionSet, type ProjectionSource } from './projection-set.js';
import { type LmdbLogParts, writeBatch } from './lmdb-write.js';
import type { LogTree } from './transparency-tree.js';
import type { Inflight } from './writer.js';
import { FactorlyError } from '../base/errors.js';

export interface LmdbEventLogOptions {
  /** The data file; LMDB keeps its lock file beside it as `<path>-lock`. */
  path: string;
  /** How often `subscribe` looks for events other processes appended (ms). */
  pollMs?: number;
  clock?: () => Date;
  /** When an append resolves (see `Durability`); default `fsync`. */
  durability?: Durability;
  /** Open without write access (a read-only mount, a copy handed to an auditor): appends are refused. */
  readOnly?: boolean;
}

/** A projection whose unsaved events number at least this many gets a snapshot when the log closes. */
const SAVE_AT_CLOSE_AFTER = 32;

/**
 * The default `EventLog`: one LMDB environment.
 * - `events`: seq (uint32) → the envelope's canonical JSON (hash included); the log itself.
 * - `ids`: event id → seq, for ids the writer chose (idempotent appends); `calls`: callId → seqs (dupSort); `latest`: type → seq;
 *   `meta`: the head (seq and hash) written with every append, a witness against truncation (see `lmdb-layout`).
 * - `derived` and `index` (see `LmdbDerived`): snapshots of the registered projections and the
 *   registered indexes.
 * - `tree` (see `LmdbTree`): the RFC 9162 Merkle tree over the chain hashes; `inflight` (see
 *   `LmdbInflight`): the calls and sessions open now, with the writer that opened each.
 * All of it is written in the same transaction as the events it covers, and the next seq is read
 * inside that transaction, so several processes appending to one file never leave gaps or duplicates.
 */
export class LmdbEventLog implements EventLog {
  private readonly root: RootDatabase;
  private readonly store: LmdbEvents;
  private readonly derived: LmdbDerived;
  private readonly merkle: LmdbTree;
  private readonly open: LmdbInflight;
  private readonly projections = new ProjectionSet();
  private readonly views = new Map<string, ProjectionView<unknown>>();
  private readonly pollMs: number;
  private readonly clock: () => Date;
  private readonly commits: LmdbCommits;
  private readonly path: string;
  readonly location: string;
  private readonly readOnly: boolean;
  private closed = false;
  private lastCommitFailed = false;
  /** Projections loaded and indexes caught up, so the writes themselves only fold the last few events. */
  private prepared = false;
  private wrote = false;
  private readonly parts: LmdbLogParts;
  private readonly source: ProjectionSource = {
    loadSnapshot: (name) => this.derived.loadSnapshot(name),
    hashAt: (seq) => (seq === 0 ? GENESIS_HASH : this.store.bySeq(seq)?.hash),
    readRange: (from, to) => this.store.range(from, to),
  };

  constructor(options: LmdbEventLogOptions) {
    checkLmdbFile(options.path);
    this.path = options.path;
    this.location = options.path;
    this.readOnly = options.readOnly ?? false;
    this.root = openLogRoot(options.path, this.readOnly);
    this.store = new LmdbEvents(this.root, options.path);
    try {
      this.store.checkHead();
    } catch (error) {
      void this.root.close().catch(() => undefined);
      throw error;
    }
    this.derived = new LmdbDerived(this.root);
    this.merkle = new LmdbTree(this.root);
    this.open = new LmdbInflight(this.root);
    this.parts = {
      store: this.store,
      derived: this.derived,
      merkle: this.merkle,
      open: this.open,
      projections: this.projections,
      source: this.source,
    };
    this.pollMs = options.pollMs ?? 50;
    this.clock = options.clock ?? (() => new Date());
    this.commits = new LmdbCommits(this.root, options.durability ?? 'fsync');
  }

  async append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<Recorded[]> {
    if (this.readOnly)
      throw new FactorlyError('LOG_WRITE_FAILED', `cannot write the event log ${this.path}: it was opened read-only`);
    try {
      const recorded = await this.appendNow(events, options);
      this.lastCommitFailed = false;
      return recorded;
    } catch (error) {
      // A write that failed after folding its events: the folds may hold events never committed.
      if (!(FactorlyError.isInstance(error) && error.code === 'LOG_CONFLICT')) this.forgetFolds();
      if (FactorlyError.isInstance(error)) throw error;
      this.lastCommitFailed = true;
      throw await commitFailure(this.path, error);
    }
  }

  private async appendNow(
    events: readonly NewEvent[],
    options: AppendOptions,
    saveAtLeast?: number,
  ): Promise<Recorded[]> {
    if (!this.prepared) await this.prepare();
    const write = () => {
      const batch = writeBatch(this.parts, events, options, this.clock, saveAtLeast);
      if (batch.last) this.wrote = true;
      return batch;
    };
    // Only once committed: an aborted write must not leave a head that was never stored.
    const { results } = await this.commits.commit(write, events, ({ last }) => this.store.committed(last));
    return results;
  }

  async *read(range: ReadRange = {}): AsyncIterable<Recorded> {
    this.refresh();
    const { from = 1, to, limit, reverse = false } = range;
    const bounds = reverse
      ? { start: to ?? undefined, end: from - 1, reverse: true }
      : { start: from, end: to === undefined ? undefined : to + 1 };
    for (const { key, value } of this.store.dbs.events.getRange({ ...bounds, limit })) yield decode(value, key);
  }

  async readCall(callId: string): Promise<Recorded[]> {
    this.refresh();
    return this.store.callEvents(callId);
  }

  async lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    this.refresh();
    return this.store.newestOf(type) as Recorded<T> | undefined;
  }

  async head(): Promise<LogHead> {
    this.refresh();
    return this.store.head();
  }

  async attestedHead(): Promise<LogHead | undefined> {
    this.refresh();
    return this.store.dbs.meta.get('head');
  }

  async tree(): Promise<LogTree> {
    this.refresh();
    return treeAtHead(this.root, this.merkle, this.store.dbs, (to) => this.read({ to }));
  }

  async inflight(): Promise<Inflight> {
    this.refresh();
    return this.open.list(
      (writer) => (this.store.byId(writerEventId(writer)) as Recorded<'writer.started'> | undefined)?.data,
    );
  }

  project<S>(projection: Projection<S>): ProjectionView<S> {
    const { name } = projection;
    if (this.projections.register(projection as Projection<unknown>)) this.prepared = false;
    const view =
      this.views.get(name) ??
      this.projections.view(name, async () => {
        this.refresh();
        this.projections.catchUp(this.source, this.store.head().seq);
        await this.recordNotices();
      });
    this.views.set(name, view);
    return view as ProjectionView<S>;
  }

  index(index: EventIndex): void {
    if (this.derived.registerIndex(index)) this.prepared = false;
  }

  /** Seqs under `key`, each checked against its event before it is handed out (see `checkedLookup`). */
  lookup(name: string, key: string, before?: number): IndexLookup {
    this.refresh();
    return checkedLookup(this.store, this.derived, { name, key, before }, (index, reason) => {
      if (this.derived.distrusted) return;
      // The next write clears every index and indexes the log again (chunk by chunk, before its own write).
      this.derived.distrusted = true;
      this.prepared = false;
      this.projections.note({ name: index, kind: 'index', reason });
    });
  }

  indexKeys(name: string): string[] {
    this.refresh();
    return this.derived.keysOf(name);
  }

  /** Drops every snapshot and index entry, then folds and indexes the whole log again (see `rebuildAll`). */
  async rebuild(progress?: (done: number, total: number) => void): Promise<RebuildReport> {
    this.refresh();
    try {
      return await rebuildAll(this.root, this.parts, () => this.saveSnapshots(0), progress);
    } catch (error) {
      if (FactorlyError.isInstance(error)) throw error;
      this.lastCommitFailed = true;
      throw await commitFailure(this.path, error);
    } finally {
      this.prepared = false;
    }
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    let next = fromSeq;
    const poll = (): void => {
      if (this.closed) return;
      this.refresh();
      for (const { key, value } of this.store.dbs.events.getRange({ start: Math.max(next, 1) })) {
        const event = decode(value, key);
        next = event.seq + 1;
        listener(event);
      }
    };
    poll();
    const timer = setInterval(poll, this.pollMs);
    return () => clearInterval(timer);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.recordNotices();
    // A writer leaves its folds behind, so the next process starts where this one stopped (not
    // after a failed commit: lmdb-js would wait for that commit's flush forever).
    if (this.wrote && !this.lastCommitFailed) await this.saveSnapshots(SAVE_AT_CLOSE_AFTER).catch(() => undefined);
    this.closed = true;
    await closeRoot(this.root, this.lastCommitFailed);
  }

  /** Before the first write: snapshots loaded and folded, indexes caught up, outside the write lock where it can be. */
  private async prepare(): Promise<void> {
    this.refresh();
    this.projections.catchUp(this.source, this.store.head().seq);
    while (this.derived.indexCount > 0) {
      const done = await this.root.transaction(() =>
        this.derived.catchUpChunk(this.store.head().seq, (from, to) => this.store.range(from, to)),
      );
      if (done) break;
    }
    this.prepared = true;
  }

  /** Stores the snapshots with at least `minEvents` events not in their stored ones, with the event that records them. */
  private async saveSnapshots(minEvents: number): Promise<void> {
    if (this.projections.size === 0) return;
    await this.appendNow([], {}, minEvents);
  }

  /** Records the snapshots a reader refused (it folded from seq 1 instead), when this process may write. */
  private async recordNotices(): Promise<void> {
    if (this.readOnly || !this.projections.noticed) return;
    // A log that cannot take the record now (a full disk) still answers: the next writer records it.
    await this.append([]).catch(() => undefined);
  }

  private forgetFolds(): void {
    this.store.forgetWritten();
    this.prepared = false;
    this.projections.reset();
  }

  /** A long-lived reader must drop its snapshot to see commits from other processes. */
  private refresh(): void {
    this.root.resetReadTxn();
  }
}
