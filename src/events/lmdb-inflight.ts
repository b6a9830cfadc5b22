import type { Database, RootDatabase, Transaction } from 'lmdb';
import type { WriterStarted } from './catalog.js';
import type { Recorded } from './envelope.js';
import type { Inflight } from './writer.js';

type Entry = { writer: string; iface?: string };

/**
 * The `inflight` database of an LMDB log: the calls and sessions open right now, kept in the append
 * transaction so opening a log finds a crashed writer's calls without reading its history. Keys:
 * `c:<callId>` and `s:<sessionId>`, each → the writer that opened it (whose record is its
 * `writer.started` event, found by id). Two writes per call: one when it opens, one when it closes.
 */
export class LmdbInflight {
  private readonly db: Database<Entry, string> | undefined;

  constructor(root: RootDatabase) {
    this.db = root.openDB<Entry, string>({ name: 'inflight', encoding: 'json' }) as Database<Entry, string> | undefined;
  }

  /** Inside the append transaction, after the events are written. */
  apply(fresh: readonly Recorded[]): void {
    const db = this.db!;
    for (const event of fresh) {
      switch (event.type) {
        case 'call.requested':
          if (event.data.writer) db.putSync(`c:${event.data.callId}`, { writer: event.data.writer });
          break;
        case 'session.opened':
          if (event.data.writer) db.putSync(`s:${event.data.sessionId}`, { writer: event.data.writer, iface: event.data.iface });
          break;
        case 'call.completed':
        case 'call.interrupted':
          db.removeSync(`c:${event.data.callId}`);
          break;
        case 'session.closed':
          db.removeSync(`s:${event.data.sessionId}`);
          break;
        default:
          break;
      }
    }
  }

  /** The call and session keys it holds; undefined when it has never been written. */
  keys(transaction?: Transaction): Set<string> | undefined {
    return this.db ? new Set(this.db.getKeys({ transaction })) : undefined;
  }

  /** What is open, with the record of each writer involved (read by `writerEvent`, by writer id). */
  list(writerEvent: (writer: string) => WriterStarted | undefined): Inflight {
    const inflight: Inflight = { calls: [], sessions: [], writers: new Map() };
    for (const { key, value } of this.db?.getRange() ?? []) {
      const id = key.slice(2);
      if (key.startsWith('c:')) inflight.calls.push({ callId: id, writer: value.writer });
      else inflight.sessions.push({ sessionId: id, writer: value.writer, iface: value.iface ?? 'mcp' });
      if (!inflight.writers.has(value.writer)) {
        const record = writerEvent(value.writer);
        if (record) inflight.writers.set(value.writer, record);
      }
    }
    return inflight;
  }
}

/** The id of a writer's `writer.started` event: one per writer, so it can be found by id. */
export function writerEventId(writer: string): string {
  return `writer-${writer}`;
}
