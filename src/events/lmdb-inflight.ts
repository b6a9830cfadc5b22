import type { Database, RootDatabase } from 'lmdb';
import type { WriterStarted } from './catalog.js';
import type { Recorded } from './envelope.js';
import type { Inflight } from './writer.js';

type Entry = { writer: string; iface?: string } | (WriterStarted & { open: number });

const CLOSES_CALL = new Set(['call.completed', 'call.interrupted']);

/**
 * The `inflight` database of an LMDB log: what is open right now, kept in the append transaction
 * so opening a log finds a crashed writer's calls without reading its history. Keys: `c:<callId>`
 * and `s:<sessionId>` (→ their writer), `w:<writer>` (→ its record and how many items it has open;
 * dropped when that reaches 0, and read back from its `writer.started` event when it opens more).
 */
export class LmdbInflight {
  private readonly db: Database<Entry, string> | undefined;

  constructor(root: RootDatabase) {
    this.db = root.openDB<Entry, string>({ name: 'inflight', encoding: 'json' }) as Database<Entry, string> | undefined;
  }

  /** Inside the append transaction, after the events are written (`writerEvent` reads one by id). */
  apply(fresh: readonly Recorded[], writerEvent: (writer: string) => WriterStarted | undefined): void {
    for (const event of fresh) {
      if (event.type === 'call.requested' && event.data.writer) this.open(`c:${event.data.callId}`, { writer: event.data.writer }, writerEvent);
      else if (event.type === 'session.opened' && event.data.writer) this.open(`s:${event.data.sessionId}`, { writer: event.data.writer, iface: event.data.iface }, writerEvent);
      else if (CLOSES_CALL.has(event.type)) this.close(`c:${(event.data as { callId: string }).callId}`);
      else if (event.type === 'session.closed') this.close(`s:${event.data.sessionId}`);
    }
  }

  /** The call and session keys it holds (`c:<callId>`, `s:<sessionId>`); undefined when it has never been written. */
  keys(): Set<string> | undefined {
    if (!this.db) return undefined;
    return new Set([...this.db.getKeys()].filter((key) => !key.startsWith('w:')));
  }

  list(): Inflight {
    const inflight: Inflight = { calls: [], sessions: [], writers: new Map() };
    for (const { key, value } of this.db?.getRange() ?? []) {
      const id = key.slice(2);
      if (key.startsWith('w:')) inflight.writers.set(id, value as WriterStarted);
      else if (key.startsWith('c:')) inflight.calls.push({ callId: id, writer: (value as { writer: string }).writer });
      else inflight.sessions.push({ sessionId: id, writer: (value as { writer: string }).writer, iface: (value as { iface: string }).iface });
    }
    return inflight;
  }

  private open(key: string, entry: { writer: string; iface?: string }, writerEvent: (writer: string) => WriterStarted | undefined): void {
    const db = this.db!;
    db.putSync(key, entry);
    const writerKey = `w:${entry.writer}`;
    const record = (db.get(writerKey) as (WriterStarted & { open: number }) | undefined) ?? withOpen(writerEvent(entry.writer));
    if (record) db.putSync(writerKey, { ...record, open: record.open + 1 });
  }

  private close(key: string): void {
    const db = this.db!;
    const entry = db.get(key) as { writer: string } | undefined;
    if (!entry) return;
    db.removeSync(key);
    const writerKey = `w:${entry.writer}`;
    const record = db.get(writerKey) as (WriterStarted & { open: number }) | undefined;
    if (!record) return;
    if (record.open <= 1) db.removeSync(writerKey);
    else db.putSync(writerKey, { ...record, open: record.open - 1 });
  }
}

function withOpen(record: WriterStarted | undefined): (WriterStarted & { open: number }) | undefined {
  return record && { ...record, open: 0 };
}

/** The id of a writer's `writer.started` event: one per writer, so it can be found by id. */
export function writerEventId(writer: string): string {
  return `writer-${writer}`;
}
