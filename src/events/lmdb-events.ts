import type { RootDatabase } from 'lmdb';
import type { Recorded } from './envelope.js';
import { openLogDatabases, type LogDatabases } from './lmdb-layout.js';
import type { LogHead } from './log.js';
import { callIdOf, EMPTY_HEAD, type SealedEvent } from './append-batch.js';
import { FactorlyError, messageOf } from '../base/errors.js';

/**
 * The events of an LMDB log and their own indexes (see `lmdb-layout`), read and written inside the
 * caller's transaction: what `LmdbEventLog` builds on. It remembers the newest head this process
 * committed, and the one it wrote in the running write, so reading the head need not decode it.
 */
export class LmdbEvents {
  readonly dbs: LogDatabases;
  private committedHead?: LogHead;
  private writtenHead?: LogHead & { txn: number };

  constructor(
    private readonly root: RootDatabase,
    private readonly path: string,
  ) {
    this.dbs = openLogDatabases(root);
  }

  head(): LogHead {
    for (const seq of this.dbs.events.getKeys({ reverse: true, limit: 1 })) {
      // An event never changes once committed, so its hash is decoded once, not on every append.
      if (this.committedHead?.seq === seq) return this.committedHead;
      // Inside a write, the previous write of the same batch (not committed yet) may be the head.
      if (this.writtenHead?.seq === seq && inWrite(this.root, this.writtenHead.txn))
        return { seq, hash: this.writtenHead.hash };
      const last = this.bySeq(seq)!;
      return { seq: last.seq, hash: last.hash };
    }
    return EMPTY_HEAD;
  }

  /** Inside a write: the events (in seq order), their ids when the writer chose them, their calls, the newest of each type and the head record. */
  write(sealed: readonly SealedEvent[]): void {
    const latest = new Map<string, number>();
    for (const { event, stored, named } of sealed) {
      this.dbs.events.putSync(event.seq, Buffer.from(stored, 'utf8'), { append: true });
      if (named) this.dbs.ids.putSync(event.id, event.seq);
      const callId = callIdOf(event);
      if (callId !== undefined) this.dbs.calls.putSync(callId, event.seq);
      latest.set(event.type, event.seq);
    }
    for (const [type, seq] of latest) this.dbs.latest.putSync(type, seq);
    const last = sealed[sealed.length - 1]!.event;
    this.dbs.meta.putSync('head', { seq: last.seq, hash: last.hash });
    this.writtenHead = { seq: last.seq, hash: last.hash, txn: this.root.getWriteTxnId() };
  }

  /** After the commit: the head this process now knows to be stored. */
  committed(last: LogHead | undefined): void {
    if (last && last.seq > (this.committedHead?.seq ?? 0)) this.committedHead = { seq: last.seq, hash: last.hash };
  }

  /** After a failed write: nothing this process wrote in it is known to be stored. */
  forgetWritten(): void {
    this.writtenHead = undefined;
  }

  /** Events from `from` to `to`, read in the caller's transaction (a write sees its own batch). */
  *range(from: number, to?: number): Iterable<Recorded> {
    for (const { key, value } of this.dbs.events.getRange({
      start: Math.max(from, 1),
      end: to === undefined ? undefined : to + 1,
    }))
      yield this.decode(value, key);
  }

  *hashesBetween(from: number, to: number): Iterable<string> {
    for (const event of this.range(from, to)) yield event.hash;
  }

  /** The event a writer gave `id`, checked to be that one (an idempotent append must never return another). */
  byId(id: string): Recorded | undefined {
    const seq = this.dbs.ids.get(id);
    return seq === undefined ? undefined : this.checked(this.bySeq(seq), 'ids', `id ${id}`, (event) => event.id === id);
  }

  /** Every event the calls index lists under `callId`, each checked to be of that call. */
  callEvents(callId: string): Recorded[] {
    return [...this.dbs.calls.getValues(callId)].flatMap((seq) => {
      const event = this.checked(this.bySeq(seq), 'calls', `call ${callId}`, (found) => callIdOf(found) === callId);
      return event ? [event] : [];
    });
  }

  /** The newest event of `type` as the latest index names it, checked to be of that type. */
  newestOf(type: string): Recorded | undefined {
    const seq = this.dbs.latest.get(type);
    return seq === undefined
      ? undefined
      : this.checked(this.bySeq(seq), 'latest', type, (event) => event.type === type);
  }

  /**
   * A hit of one of the log's own indexes, checked against the event it names: an entry edited in the
   * file makes the read fail (exit 2, naming the file) rather than answer with another event.
   */
  private checked(
    event: Recorded | undefined,
    index: string,
    under: string,
    holds: (event: Recorded) => boolean,
  ): Recorded | undefined {
    if (!event || holds(event)) return event;
    throw damaged(
      this.path,
      `the ${index} index lists seq ${event.seq} under ${under}, but that event (${event.type}) is not it`,
    );
  }

  /**
   * At open, O(1): the events end where the head record (written with every append) says. A tree
   * LMDB reads short on a damaged page, or a cut tail, is then refused naming the file, never read
   * (or written on) as the whole log; `logs verify`, which names a cut tail as tampering, opens the
   * file its own way.
   */
  checkHead(): void {
    const { path } = this;
    try {
      const attested = this.dbs.meta.get('head');
      if (!attested) return; // a new log, or one written before the head record
      const head = this.head();
      if (head.seq === attested.seq && head.hash === attested.hash) return;
      const found =
        head.seq === attested.seq
          ? `its last event (seq ${head.seq}) is not the one`
          : `it ends at seq ${head.seq} but`;
      throw damaged(path, `${found} its head record says ${attested.seq}`);
    } catch (error) {
      if (FactorlyError.isInstance(error) && error.code === 'LOG_UNREADABLE') throw error;
      throw damaged(path, `it could not be read (${messageOf(error)})`, error);
    }
  }

  /** Events `from` to `to`, every one of them: a seq LMDB does not give back is damage, not an end. */
  wholeRange(from: number, to: number): Recorded[] {
    const { path } = this;
    const events = [...this.range(from, to)];
    const missing = events.findIndex((event, i) => event.seq !== from + i);
    if (missing >= 0 || events.length !== to - from + 1)
      throw damaged(
        path,
        `seq ${missing >= 0 ? from + missing : from + events.length} of ${from}–${to} cannot be read`,
      );
    return events;
  }

  bySeq(seq: number): Recorded | undefined {
    const bytes = this.dbs.events.getBinary(seq);
    return bytes === undefined ? undefined : this.decode(bytes, seq);
  }

  /**
   * An entry that is not JSON, met by what folds or looks events up (not by `logs verify`, which
   * names it as a finding): the file is damaged, exit 2 naming it, like a page LMDB cannot read.
   */
  private decode(bytes: Buffer, seq: number): Recorded {
    try {
      return decode(bytes, seq);
    } catch (error) {
      throw damaged(this.path, messageOf(error), error);
    }
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

export function decode(bytes: Buffer, seq: number): Recorded {
  try {
    return JSON.parse(bytes.toString('utf8')) as Recorded;
  } catch (cause) {
    throw new FactorlyError('LOG_CORRUPT', `event log entry ${seq} is not valid JSON`, { cause, data: { seq } });
  }
}

/** A log file that does not read as a whole: exit 2, naming the file, like a file that is not LMDB. */
export function damaged(path: string, problem: string, cause?: unknown): FactorlyError {
  return new FactorlyError(
    'LOG_UNREADABLE',
    `the event log ${path} is damaged: ${problem}; run factorly logs verify, move it aside to start a new log, or restore it from a backup`,
    { cause, data: { path } },
  );
}
