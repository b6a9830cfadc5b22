import type { NewEvent, Recorded } from './envelope.js';
import type { LmdbDerived } from './lmdb-derived.js';
import type { LmdbEvents } from './lmdb-events.js';
import type { LmdbInflight } from './lmdb-inflight.js';
import type { LmdbTree } from './lmdb-tree.js';
import type { AppendOptions } from './log.js';
import type { ProjectionSet, ProjectionSource } from './projection-set.js';
import { resolveConflict, sealBatch } from './append-batch.js';

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
 * they advance, the tree and what is in flight. lmdb-js does not undo the writes of a transaction
 * whose callback throws, so everything that can fail is done before the first write.
 */
export function writeBatch(
  parts: LmdbLogParts,
  events: readonly NewEvent[],
  options: AppendOptions,
  clock: () => Date,
): { results: Recorded[]; wrote: boolean } {
  const { store, merkle, derived, open, projections, source } = parts;
  const head = store.head();
  // Events other processes appended since: folded before the conflict handler decides against the projections.
  projections.catchUp(source, head.seq);
  const batch = resolveConflict(events, options, head, (seq) => [...store.range(seq)]);
  const sealed = sealBatch(batch.events, batch.options, {
    head,
    findById: (id) => store.byId(id),
    now: clock(),
  });
  if (sealed.fresh.length === 0) return { results: sealed.results, wrote: false };
  const fresh = sealed.fresh.map(({ event }) => event);
  const growth = merkle.prepare(
    head,
    (from) => store.hashesBetween(from, head.seq),
    (at) => store.bySeq(at)?.hash,
  );
  const indexed =
    derived.indexCount > 0 ? derived.planIndex(head.seq, (from) => store.range(from, head.seq), fresh) : undefined;
  // A fold never throws (a failing one is marked broken).
  projections.apply(fresh);
  const due = projections.due();
  store.write(sealed.fresh);
  if (indexed) derived.writeIndex(indexed, fresh[fresh.length - 1]!.seq);
  for (const { name, snapshot } of due) derived.saveSnapshot(name, snapshot);
  merkle.extend(
    growth,
    fresh.map((event) => event.hash),
  );
  open.apply(fresh);
  return { results: sealed.results, wrote: true };
}
