import { open, type Database, type RootDatabase } from 'lmdb';
import type { EventType } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, Unsubscribe } from './log.js';
import { callIdOf, EMPTY_HEAD, rebased, sealBatch } from './seal.js';
import { LmdbTree, type TreeGrowth } from './lmdb-tree.js';
import { openLogDatabases } from './lmdb-layout.js';
import { LmdbInflight, writerEventId } from './lmdb-inflight.js';
import type { Inflight } from './writer.js';
import { rebuiltTree } from './tree-rebuild.js';
import type { LogTree, TreeHead } from './transparency-tree.js';
import { FactorlyError } from '../kernel/base/errors.js';
import { closeRoot, commitFailure, guardPendingCommit } from './lmdb-faults.js';

export interface LmdbEventLogOptions {
  /** The data file; LMDB keeps its lock file beside it as `<path>-lock`. */
  path: string;
  /** How often `subscribe` looks for events other processes appended (ms). */
  pollMs?: number;
  clock?: () => Date;
  /** Open without write access (a read-only mount, a copy handed to an auditor): appends are refused. */
  readOnly?: boolean;
}

/**
 * The default `EventLog`: one LMDB environment with four databases.
 * - `events`: seq (uint32) → JSON bytes of the envelope; the log itself.
 * - `ids`: event id → seq (idempotent appends); `calls`: callId → seqs (dupSort); `latest`: type → seq;
 *   `meta`: the head (seq and hash) written with every append, a witness against truncation.
 * - `tree`: the RFC 9162 Merkle tree over the chain hashes (see LmdbTree), extended in the same
 *   transaction.
 * The indexes are written in the same transaction as the events, and the next seq is read inside
 * that transaction, so several processes appending to one file never leave gaps or duplicates.
 */
export class LmdbEventLog implements EventLog {
  private readonly root: RootDatabase;
  private readonly events: Database<Buffer, number>;
  private readonly ids: Database<number, string>;
  private readonly calls: Database<number, string>;
  private readonly latest: Database<number, string>;
  private readonly meta: Database<LogHead, string>;
  private readonly merkle: LmdbTree;
  private readonly open: LmdbInflight;
  private readonly pollMs: number;
  private readonly clock: () => Date;
  private closed = false;
  private lastCommitFailed = false;
  private readonly path: string;
  /** The newest event this process saw committed (seq and hash), so reading the head need not decode it. */
  private committedHead?: LogHead;

  constructor(options: LmdbEventLogOptions) {
    this.path = options.path;
    this.root = open({ path: options.path, compression: false, readOnly: options.readOnly });
    ({ events: this.events, ids: this.ids, calls: this.calls, latest: this.latest, meta: this.meta } = openLogDatabases(this.root));
    this.merkle = new LmdbTree(this.root);
    this.open = new LmdbInflight(this.root);
    this.pollMs = options.pollMs ?? 50;
    this.clock = options.clock ?? (() => new Date());
  }

  async append(events: readonly NewEvent[], options: AppendOptions = {}): Promise<Recorded[]> {
    try {
      const recorded = await this.appendNow(events, options);
      this.lastCommitFailed = false;
      return recorded;
    } catch (error) {
      if (FactorlyError.isInstance(error)) throw error;
      this.lastCommitFailed = true;
      throw await commitFailure(this.path, error);
    }
  }

  private async appendNow(events: readonly NewEvent[], options: AppendOptions): Promise<Recorded[]> {
    const written = this.root.transaction(() => {
      const head = this.readHead();
      const batch = rebased(events, options, head, (seq) => this.readSync(seq));
      const sealed = sealBatch(batch.events, batch.options, {
        head,
        findById: (id) => this.byId(id),
        now: this.clock(),
      });
      const growth = sealed.fresh.length === 0 ? undefined : this.prepareTree(head.seq);
      const latest = new Map<string, number>();
      for (const event of sealed.fresh) {
        this.write(event);
        latest.set(event.type, event.seq);
      }
      for (const [type, seq] of latest) this.latest.putSync(type, seq);
      const last = sealed.fresh.at(-1);
      if (last) this.meta.putSync('head', { seq: last.seq, hash: last.hash });
      const frontier = growth && this.merkle.extend(growth, sealed.fresh.map((event) => event.hash));
      this.open.apply(sealed.fresh);
      return { results: sealed.results, frontier };
    }).then(({ results, frontier }) => {
      if (frontier) this.merkle.committedTo(frontier);
      return results;
    });
    guardPendingCommit(this.root);
    const results = await written;
    // Only now (committed): an aborted write must not leave a head that was never stored.
    const last = results.at(-1);
    if (last && last.seq > (this.committedHead?.seq ?? 0)) this.committedHead = { seq: last.seq, hash: last.hash };
    // lmdb-js resolves a transaction once it is committed; the fsync overlaps the next one. Wait for
    // it, so an acknowledged append survives power loss, not only a killed process.
    await this.root.flushed;
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

  async tree(): Promise<LogTree> {
    this.refresh();
    // The last seq and the tree's head from one snapshot, so another process's commit in between
    // cannot make them disagree (a range read takes a snapshot of its own unless given one).
    this.meta.get('head');
    const transaction = this.root.useReadTransaction();
    let seq = 0;
    let head: TreeHead | undefined;
    try {
      for (const key of this.events.getKeys({ reverse: true, limit: 1, transaction })) seq = key;
      head = this.merkle.head(transaction);
    } finally {
      transaction.done();
    }
    return this.merkle.view(seq, (at) => this.bySeq(at)?.hash, head) ?? rebuiltTree(this.read({ to: seq }), head?.origin);
  }

  async inflight(): Promise<Inflight> {
    this.refresh();
    return this.open.list((writer) => (this.byId(writerEventId(writer)) as Recorded<'writer.started'> | undefined)?.data);
  }

  async attestedHead(): Promise<LogHead | undefined> {
    this.refresh();
    return this.meta.get('head');
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
    this.closed = true;
    await closeRoot(this.root, this.lastCommitFailed);
  }

  private write(event: Recorded): void {
    // Stored as plain JSON: the hash covers the canonical form, which verification rebuilds on read.
    this.events.putSync(event.seq, Buffer.from(JSON.stringify(event)), { append: true });
    this.ids.putSync(event.id, event.seq);
    const callId = callIdOf(event);
    if (callId !== undefined) this.calls.putSync(callId, event.seq);
  }

  private prepareTree(seq: number): TreeGrowth {
    return this.merkle.prepare(seq, (from) => this.hashesBetween(from, seq), (at) => this.bySeq(at)?.hash);
  }

  private *hashesBetween(from: number, to: number): Iterable<string> {
    for (const { key, value } of this.events.getRange({ start: from, end: to + 1 })) yield decode(value, key).hash;
  }

  private readHead(): LogHead {
    for (const seq of this.events.getKeys({ reverse: true, limit: 1 })) {
      // An event never changes once committed, so its hash is decoded once, not on every append.
      if (this.committedHead?.seq === seq) return this.committedHead;
      const last = this.bySeq(seq)!;
      return { seq: last.seq, hash: last.hash };
    }
    return EMPTY_HEAD;
  }

  /** Events from `from` to the head, read in the caller's transaction (a write sees its own batch). */
  private readSync(from: number): Recorded[] {
    return [...this.events.getRange({ start: from })].map(({ key, value }) => decode(value, key));
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

function decode(bytes: Buffer, seq: number): Recorded {
  try {
    return JSON.parse(bytes.toString('utf8')) as Recorded;
  } catch (cause) {
    throw new FactorlyError('LOG_CORRUPT', `event log entry ${seq} is not valid JSON`, { cause, data: { seq } });
  }
}
