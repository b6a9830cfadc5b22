import type { NewEvent, Recorded } from './envelope.js';
import type { LmdbDerived } from './lmdb-derived.js';
import type { LmdbEvents } from './lmdb-events.js';
import type { LmdbInflight } from './lmdb-inflight.js';
import type { LmdbTree } from './lmdb-tree.js';
import type { AppendOptions, LogHead } from './log.js';
import type { DueSnapshot, ProjectionSet, ProjectionSource } from './projection-set.js';
import { resolveConflict, sealBatch, type SealedEvent } from './append-batch.js';
import { savedRecord } from './snapshot-digest.js';

/** The parts of an LMDB log file one append writes, each in the same transaction as the events. */
export interface LmdbLogParts {
  store: LmdbEvents;
  derived: LmdbDerived;
  merkle: LmdbTree;
  open: LmdbInflight;
  projections: ProjectionSet;
  source: ProjectionSource;
}

/**
 * Inside the write transaction: seal on the head, then write the events, their indexes, the folds
 * they advance (with the snapshots due and the event recording their digests, see `savedRecord`),
 * the tree and what is in flight. lmdb-js does not undo the writes of a transaction whose callback
 * throws, so everything that can fail is done before the first write. `saveAtLeast` stores every
 * snapshot with at least that many events not in its stored one (closing, rebuilding).
 */
export function writeBatch(
  parts: LmdbLogParts,
  events: readonly NewEvent[],
  options: AppendOptions,
  clock: () => Date,
  saveAtLeast?: number,
): { results: Recorded[]; last?: Recorded } {
  const { store, merkle, derived, open, projections, source } = parts;
  const head = store.head();
  // Events other processes appended since: folded before the conflict handler decides against the projections.
  projections.catchUp(source, head.seq);
  const batch = resolveConflict(events, options, head, (seq) => [...store.range(seq)]);
  const now = clock();
  const sealed = sealBatch(batch.events, batch.options, { head, findById: (id) => store.byId(id), now });
  // A fold never throws (a failing one is marked broken).
  projections.apply(sealed.fresh.map(({ event }) => event));
  const { written, due } = withDerivedRecords(projections, sealed.fresh, head, now, saveAtLeast);
  if (written.length === 0) return { results: sealed.results };
  const fresh = written.map(({ event }) => event);
  const last = fresh[fresh.length - 1]!;
  const growth = merkle.prepare(
    head,
    (from) => store.hashesBetween(from, head.seq),
    (at) => store.bySeq(at)?.hash,
  );
  const indexed =
    derived.indexCount > 0 ? derived.planIndex(head.seq, (from) => store.range(from, head.seq), fresh) : undefined;
  store.write(written);
  if (indexed) derived.writeIndex(indexed, last.seq);
  for (const { name, snapshot } of due) derived.saveSnapshot(name, { ...snapshot, recorded: last.seq });
  merkle.extend(
    growth,
    fresh.map((event) => event.hash),
  );
  open.apply(fresh);
  return { results: sealed.results, last };
}

/**
 * The batch's events followed by what the log records about its derived state: the refusals of
 * snapshots it did not use (`projection.rebuilt`), and, when snapshots are due, the
 * `projection.saved` event that records their digests (last, so its seq is where they are vouched for).
 */
function withDerivedRecords(
  projections: ProjectionSet,
  fresh: readonly SealedEvent[],
  head: LogHead,
  now: Date,
  saveAtLeast: number | undefined,
): { written: SealedEvent[]; due: DueSnapshot[] } {
  const due = projections.due(saveAtLeast);
  const records = [...projections.takeNotices(), ...(due.length > 0 ? [savedRecord(due)] : [])];
  if (records.length === 0) return { written: [...fresh], due };
  const top = fresh.length > 0 ? fresh[fresh.length - 1]!.event : head;
  const sealed = sealBatch(records, {}, { head: { seq: top.seq, hash: top.hash }, findById: () => undefined, now });
  projections.apply(sealed.fresh.map(({ event }) => event));
  return { written: [...fresh, ...sealed.fresh], due };
}
