import type { RootDatabase } from 'lmdb';
import { LmdbDerived } from './lmdb-derived.js';
import type { LmdbLogParts } from './lmdb-write.js';
import type { RebuildReport } from './log.js';
import { guardPendingCommit } from './lmdb-faults.js';

/**
 * `logs rebuild` for an LMDB log: drops every snapshot and index entry, then folds and indexes the
 * whole log again, chunk by chunk. Every seq must read back (`wholeRange`): a damaged page fails the
 * rebuild naming the file, instead of leaving projections folded over part of the log.
 */
export async function rebuildAll(
  root: RootDatabase,
  { store, derived, projections }: LmdbLogParts,
  saveSnapshots: () => Promise<void>,
  progress?: (done: number, total: number) => void,
): Promise<RebuildReport> {
  const head = store.head().seq;
  await guarded(
    root,
    root.transaction(() => derived.clearAll()),
  );
  projections.forget();
  for (let covered = 0; covered < head;) {
    const to = Math.min(head, covered + LmdbDerived.chunk);
    const events = store.wholeRange(covered + 1, to);
    projections.apply(events);
    if (derived.indexCount > 0)
      await guarded(
        root,
        root.transaction(() => derived.indexEvents(events, to)),
      );
    covered = to;
    progress?.(covered, head);
  }
  await saveSnapshots();
  return { events: head, projections: projections.names(), indexes: derived.indexNames() };
}

/** A failed commit rejects lmdb-js's own pending promise too: handled, so the failure is reported once, by the caller. */
function guarded<T>(root: RootDatabase, written: Promise<T>): Promise<T> {
  guardPendingCommit(root);
  return written;
}
