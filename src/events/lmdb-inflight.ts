import type { Database, RootDatabase, Transaction } from 'lmdb';
import type { WriterStarted } from './catalog.js';
import type { Recorded } from './envelope.js';
import { inflightChange, listInflight, type InflightEntry } from './inflight-fold.js';
import type { Inflight } from './writer.js';

type Entry = InflightEntry;

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
      const change = inflightChange(event);
      if (change?.entry) db.putSync(change.key, change.entry);
      else if (change) db.removeSync(change.key);
    }
  }

  /** The call and session keys it holds; undefined when it has never been written. */
  keys(transaction?: Transaction): Set<string> | undefined {
    return this.db ? new Set(this.db.getKeys({ transaction })) : undefined;
  }

  /** What is open, with the record of each writer involved (read by `writerEvent`, by writer id). */
  list(writerEvent: (writer: string) => WriterStarted | undefined): Inflight {
    return listInflight(this.db?.getRange() ?? [], writerEvent);
  }
}

/** The id of a writer's `writer.started` event: one per writer, so it can be found by id. */
export function writerEventId(writer: string): string {
  return `writer-${writer}`;
}
