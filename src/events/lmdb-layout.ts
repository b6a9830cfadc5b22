import type { Database, RootDatabase } from 'lmdb';
import type { LogHead } from './log.js';

/**
 * The databases of an LMDB event log, opened one way for the log itself and for whoever checks it
 * (verification, its worker threads): `events` holds the log, the others are indexes over it.
 */
export interface LogDatabases {
  /** seq (uint32) → JSON bytes of the envelope. */
  events: Database<Buffer, number>;
  /** event id → seq (idempotent appends). */
  ids: Database<number, string>;
  /** callId → seqs (dupSort). */
  calls: Database<number, string>;
  /** type → seq of its newest event. */
  latest: Database<number, string>;
  /** `head` → the last seq and hash, written with every append. */
  meta: Database<LogHead, string>;
}

export function openLogDatabases(root: RootDatabase): LogDatabases {
  return {
    events: root.openDB<Buffer, number>({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' }),
    ids: root.openDB<number, string>({ name: 'ids', encoding: 'ordered-binary' }),
    calls: root.openDB<number, string>({ name: 'calls', dupSort: true, encoding: 'ordered-binary' }),
    latest: root.openDB<number, string>({ name: 'latest', encoding: 'ordered-binary' }),
    meta: root.openDB<LogHead, string>({ name: 'meta', encoding: 'json' }),
  };
}
