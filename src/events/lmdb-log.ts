import { open, type Database, type RootDatabase } from 'lmdb';
import type { EventType } from './catalog.js';
import { GENESIS_HASH, type NewEvent, type Recorded } from './envelope.js';
import type { EventIndex, IndexLookup } from './event-index.js';
import { LmdbDerived } from './lmdb-derived.js';
import type { AppendOptions, Durability, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
import type { Projection, ProjectionView } from './projection.js';
import { ProjectionSet, type ProjectionSource } from './projection-set.js';
import { callIdOf, EMPTY_HEAD, rebased, sealBatch } from './seal.js';
import { FactorlyError } from '../kernel/base/errors.js';
import { checkLmdbFile } from './lmdb-file-check.js';

export interface LmdbEventLogOptions {
  /** The data file; LMDB keeps its lock file beside it as `<path>-lock`. */
  path: string;
  /** How often `subscribe` looks for events other processes appended (ms). */
  pollMs?: number;
  clock?: () => Date;
  /** When an append resolves (see `Durability`); default `fsync`. */
  durability?: Durability;
}

/** A projection whose unsaved events number at least this many gets a snapshot when the log closes. */
const SAVE_AT_CLOSE_AFTER = 32;

/**
 * The default `EventLog`: one LMDB environment.
 * - `events`: seq (uint32) → the envelope's canonical JSON (hash included); the log itself.
 * - `ids`: event id → seq, for ids the writer chose (idempotent appends); `calls`: callId → seqs (dupSort); `latest`: type → seq;
 *   `meta`: the head (seq and hash) written with every append, a witness against truncation.
 * - `derived` and `index` (see `LmdbDerived`): snapshots of the registered projections and the
 *   registered indexes, written in the same transaction as the events they cover.
 * The next seq is read inside the write transaction, so several processes appending to one file
 * never leave gaps or duplicates.
 */
export class LmdbEventLog implements EventLog {
  private readonly root: RootDatabase;
  private readonly events: Database<Buffer, number>;
  private readonly ids: Database<number, string>;
  private readonly calls: Database<number, string>;
  private readonly latest: Database<number, string>;
  private readonly meta: Database<LogHead, string>;
  private readonly derived: LmdbDerived;
  private readonly projections = new ProjectionSet();
  private readonly views = new Map<string, ProjectionView<unknown>>();
  private readonly pollMs: number;
  private readonly clock: () => Date;
  private readonly durability: Durability;
  private closed = false;
  /** Projections loaded and indexes caught up, so the writes themselves only fold the last few events. */
  private prepared = false;
  private wrote = false;
  /** The newest event this process saw committed (seq and hash), so reading the head need not decode it. */
  private committedHead?: LogHead;
  /** The last event this process wrote and in which write transaction: the head a later write of the same batch sees. */
  private writtenHead?: LogHead & { txn: number };
  private readonly source: ProjectionSource = {
    loadSnapshot: (name) => this.derived.loadSnapshot(name),
    hashAt: (seq) => (seq === 0 ? GENESIS_HASH : this.bySeq(seq)?.hash),
    readRange: (from, to) => this.readRangeSync(from, to),
  };

  constructor(options: LmdbEventLogOptions) {
    checkLmdbFile(options.path);
    this.root = open({ path: options.path, compression: false });
    this.events = this.root.openDB<Buffer, number>({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' });
    this.ids = this.root.openDB<number, string>({ name: 'ids', encoding: 'ordered-binary' });
    this.calls = this.root.openDB<number, string>({ name: 'calls', dupSort: true, encoding: 'ordered-binary' });
    this.latest = this.root.openDB<number, string>({ name: 'latest', encoding: 'ordered-binary' });
    this.meta = this.root.openDB<LogHead, string>({ name: 'meta', encoding: 'json' });
    this.derived = new LmdbDerived(this.root);
    this.pollMs = options.pollMs ?? 50;
    this.clock = options.clock ?? (() => new Date());
    this.durability = options.durability ?? 'fsync';
  }

  async append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<Recorded[]> {
    if (!this.prepared) await this.prepare();
    let results: Recorded[];
    try {
      results = await this.root.transaction(() => this.writeBatch(events, options));
    } catch (error) {
      // A write that failed after folding its events: the folds may hold events never committed.
      if (!(FactorlyError.isInstance(error) && error.code === 'LOG_CONFLICT')) this.forgetFolds();
      throw error;
    }
    // Only now (committed): an aborted write must not leave a head that was never stored.
    const last = results.at(-1);
    if (last && last.seq > (this.committedHead?.seq ?? 0)) this.committedHead = { seq: last.seq, hash: last.hash };
    // lmdb-js resolves a transaction once it is committed; the fsync overlaps the next one.
    if (this.durability === 'fsync') await this.root.flushed;
    return results;
  }

  async *read(range: ReadRange = {}): AsyncIterable<Recorded> {
    this.refresh();
    const { from = 1, to, limit, reverse = false } = range;
    const bounds = reverse
      ? { start: to ?? undefined, end: from - 1, reverse: true }
      : { start: from, end: to === undefined ? undefined : to + 1 };
    for (const { key, value } of this.events.getRange({ ...bounds, limit })) yield decode(value, key);
  }

  async readCall(callId: string): Promise<Recorded[]> {
    this.refresh();
    const seqs = [...this.calls.getValues(callId)];
    return seqs.map((seq) => this.bySeq(seq)).filter((event): event is Recorded => event !== undefined);
  }

  async lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    this.refresh();
    const seq = this.latest.get(type);
    return seq === undefined ? undefined : (this.bySeq(seq) as Recorded<T> | undefined);
  }

  async head(): Promise<LogHead> {
    this.refresh();
    return this.readHead();
  }

  async attestedHead(): Promise<LogHead | undefined> {
    this.refresh();
    return this.meta.get('head');
  }

  project<S>(projection: Projection<S>): ProjectionView<S> {
    const { name } = projection;
    if (this.projections.register(projection as Projection<unknown>)) this.prepared = false;
    const view = this.views.get(name) ?? this.projections.view(name, () => {
      this.refresh();
      this.projections.catchUp(this.source, this.readHead().seq);
    });
    this.views.set(name, view);
    return view as ProjectionView<S>;
  }

  index(index: EventIndex): void {
    if (this.derived.registerIndex(index)) this.prepared = false;
  }

  lookup(name: string, key: string, before?: number): IndexLookup {
    this.refresh();
    return this.derived.lookup(name, key, before);
  }

  indexKeys(name: string): string[] {
    this.refresh();
    return this.derived.keysOf(name);
  }

  /** Drops every snapshot and index entry, then folds and indexes the whole log again, chunk by chunk. */

  async rebuild(progress?: (done: number, total: number) => void): Promise<RebuildReport> {
    this.refresh();
    const head = this.readHead().seq;
    await this.root.transaction(() => this.derived.clearAll());
    this.projections.forget();
    for (let covered = 0; covered < head; ) {
      const to = Math.min(head, covered + LmdbDerived.chunk);
      const events = [...this.readRangeSync(covered + 1, to)];
      this.projections.apply(events);
      if (this.derived.indexCount > 0) await this.root.transaction(() => this.derived.indexEvents(events, to));
      covered = to;
      progress?.(covered, head);
    }
    await this.saveSnapshots(0);
    this.prepared = false;
    return { events: head, projections: this.projections.names(), indexes: this.derived.indexNames() };
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    let next = fromSeq;
    const poll = (): void => {
      if (this.closed) return;
      this.refresh();
      for (const { key, value } of this.events.getRange({ start: Math.max(next, 1) })) {
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
    // A writer leaves its folds behind, so the next process starts where this one stopped.
    if (this.wrote) await this.saveSnapshots(SAVE_AT_CLOSE_AFTER).catch(() => undefined);
    this.closed = true;
    await this.root.close();
  }

  /** Inside the write transaction: seal on the head, write the events, their indexes and the folds they advance. */
  private writeBatch(events: readonly NewEvent[], options: AppendOptions): Recorded[] {
    const head = this.readHead();
    // Events other processes appended since: folded before a rebase decides against the projections.
    this.projections.catchUp(this.source, head.seq);
    const batch = rebased(events, options, head, (seq) => [...this.readRangeSync(seq)]);
    const sealed = sealBatch(batch.events, batch.options, { head, findById: (id) => this.byId(id), now: this.clock() });
    if (sealed.fresh.length === 0) return sealed.results;
    const latest = new Map<string, number>();
    for (const { event, stored, named } of sealed.fresh) {
      this.write(event, stored, named);
      latest.set(event.type, event.seq);
    }
    const fresh = sealed.fresh.map(({ event }) => event);
    const last = fresh[fresh.length - 1];
    if (this.derived.indexCount > 0) this.derived.indexUpTo(head.seq, (from) => this.readRangeSync(from, head.seq), fresh, last.seq);
    this.projections.apply(fresh);
    for (const { name, snapshot } of this.projections.due()) this.derived.saveSnapshot(name, snapshot);
    for (const [type, seq] of latest) this.latest.putSync(type, seq);
    this.meta.putSync('head', { seq: last.seq, hash: last.hash });
    this.writtenHead = { seq: last.seq, hash: last.hash, txn: this.root.getWriteTxnId() };
    this.wrote = true;
    return sealed.results;
  }

  /** Before the first write: snapshots loaded and folded, indexes caught up, outside the write lock where it can be. */
  private async prepare(): Promise<void> {
    this.refresh();
    this.projections.catchUp(this.source, this.readHead().seq);
    while (this.derived.indexCount > 0) {
      const done = await this.root.transaction(() => this.derived.catchUpChunk(this.readHead().seq, (from, to) => this.readRangeSync(from, to)));
      if (done) break;
    }
    this.prepared = true;
  }

  private async saveSnapshots(minEvents: number): Promise<void> {
    const due = this.projections.due(minEvents);
    if (due.length === 0) return;
    await this.root.transaction(() => {
      for (const { name, snapshot } of due) this.derived.saveSnapshot(name, snapshot);
    });
    await this.root.flushed;
  }

  private forgetFolds(): void {
    [this.writtenHead, this.prepared] = [undefined, false];
    this.projections.reset();
  }

  private write(event: Recorded, stored: string, named: boolean): void {
    this.events.putSync(event.seq, Buffer.from(stored, 'utf8'), { append: true });
    if (named) this.ids.putSync(event.id, event.seq);
    const callId = callIdOf(event);
    if (callId !== undefined) this.calls.putSync(callId, event.seq);
  }

  private readHead(): LogHead {
    for (const seq of this.events.getKeys({ reverse: true, limit: 1 })) {
      // An event never changes once committed, so its hash is decoded once, not on every append.
      if (this.committedHead?.seq === seq) return this.committedHead;
      // Inside a write, the previous write of the same batch (not committed yet) may be the head.
      if (this.writtenHead?.seq === seq && inWrite(this.root, this.writtenHead.txn)) return { seq, hash: this.writtenHead.hash };
      const last = this.bySeq(seq)!;
      return { seq: last.seq, hash: last.hash };
    }
    return EMPTY_HEAD;
  }

  /** Events from `from` to `to`, read in the caller's transaction (a write sees its own batch). */
  private *readRangeSync(from: number, to?: number): Iterable<Recorded> {
    for (const { key, value } of this.events.getRange({ start: Math.max(from, 1), end: to === undefined ? undefined : to + 1 })) yield decode(value, key);
  }

  private byId(id: string): Recorded | undefined {
    const seq = this.ids.get(id);
    return seq === undefined ? undefined : this.bySeq(seq);
  }

  private bySeq(seq: number): Recorded | undefined {
    const bytes = this.events.getBinary(seq);
    return bytes === undefined ? undefined : decode(bytes, seq);
  }

  /** A long-lived reader must drop its snapshot to see commits from other processes. */
  private refresh(): void {
    this.root.resetReadTxn();
  }
}

/** Whether `txn` is the write transaction running now (outside one, lmdb-js throws). */
function inWrite(root: RootDatabase, txn: number): boolean {
  try {
    return root.getWriteTxnId() === txn;
  } catch {
    return false;
  }
}

function decode(bytes: Buffer, seq: number): Recorded {
  try {
    return JSON.parse(bytes.toString('utf8')) as Recorded;
  } catch (cause) {
    throw new FactorlyError('LOG_CORRUPT', `event log entry ${seq} is not valid JSON`, { cause, data: { seq } });
  }
}
