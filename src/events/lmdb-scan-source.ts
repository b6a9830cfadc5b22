import { open, type RootDatabase } from 'lmdb';
import { LmdbDerived } from './lmdb-derived.js';
import { openLogDatabases, type LogDatabases } from './lmdb-layout.js';
import type { ScanSource } from './verify-scan.js';

/**
 * The events from `from` to `to` by key, skipping missing ones (a gap the checker names). Read
 * one key at a time into lmdb-js's shared buffer: four times cheaper than a range cursor for the
 * whole-log scan, so each value must be used before the next is read.
 */
function* entriesByKey(dbs: LogDatabases, from: number, to: number): Iterable<{ key: number; value: Uint8Array }> {
  for (let key = from; key <= to; key += 1) {
    const value = dbs.events.getBinaryFast(key);
    if (value !== undefined) yield { key, value };
  }
}

/** A log file opened for checking: read-only, so it works on a copy without write access. */
export interface OpenedLogFile {
  root: RootDatabase;
  dbs: LogDatabases;
  /** The snapshots and registered indexes (`logs --tool/--agent/--status`, a plugin's). */
  derived: LmdbDerived;
  source: ScanSource;
}

export function openLogFile(path: string): OpenedLogFile {
  const root = open({ path, compression: false, readOnly: true });
  const dbs = openLogDatabases(root);
  const derived = new LmdbDerived(root);
  return { root, dbs, derived, source: scanSourceOf(dbs, derived) };
}

export function scanSourceOf(dbs: LogDatabases, derived?: LmdbDerived): ScanSource {
  return {
    auditListed: derived && ((name, key, seq) => derived.lists(name, key, seq)),
    auditEntries: derived && (() => derived.allEntries()),
    entries: (from, to) => entriesByKey(dbs, from, to),
    seqOfId: (id) => dbs.ids?.get(id),
    callLists: (callId, seq) => dbs.calls?.doesExist(callId, seq) ?? false,
    callSeqs: (callId) => (dbs.calls ? [...dbs.calls.getValues(callId)] : []),
    indexEntries: (name) => dbs[name].getRange().map(({ key, value }) => ({ key, value })),
  };
}
