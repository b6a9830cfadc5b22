import { open, type RootDatabase } from 'lmdb';
import { openLogDatabases, type LogDatabases } from './lmdb-layout.js';
import type { ScanSource } from './verify-scan.js';

/** A log file opened for checking: read-only, so it works on a copy without write access. */
export interface OpenedLogFile {
  root: RootDatabase;
  dbs: LogDatabases;
  source: ScanSource;
}

export function openLogFile(path: string): OpenedLogFile {
  const root = open({ path, compression: false, readOnly: true });
  const dbs = openLogDatabases(root);
  return { root, dbs, source: scanSourceOf(dbs) };
}

export function scanSourceOf(dbs: LogDatabases): ScanSource {
  return {
    entries: (from, to) => dbs.events.getRange({ start: from, end: to + 1 }).map(({ key, value }) => ({ key, value })),
    seqOfId: (id) => dbs.ids?.get(id),
    callLists: (callId, seq) => dbs.calls?.doesExist(callId, seq) ?? false,
    callSeqs: (callId) => (dbs.calls ? [...dbs.calls.getValues(callId)] : []),
    indexEntries: (name) => dbs[name].getRange().map(({ key, value }) => ({ key, value })),
  };
}
