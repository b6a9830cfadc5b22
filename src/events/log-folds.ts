import type { Recorded } from './envelope.js';
import { inflightChange, type InflightEntry } from './inflight-fold.js';
import { chainLeaf, CompactRange } from './merkle.js';
import type { Projection } from './projection.js';

/**
 * What a log over a shared stream keeps of its whole history as persisted projections (snapshots
 * beside the stream, like any projection's), so a node that joins reads the stream's tail only:
 * the last event of each type, the calls and sessions open now, and the right edge of the Merkle tree.
 */

/** Event type → the seq of its newest event (`lastOf`). */
export const latestProjection: Projection<Map<string, number>> = {
  name: 'log.latest',
  init: () => new Map(),
  evolve(state, event) {
    state.set(event.type, event.seq);
    return state;
  },
};

/** `c:<callId>` / `s:<sessionId>` → the writer that opened it, while it is open (see `inflightChange`). */
export const openProjection: Projection<Map<string, InflightEntry>> = {
  name: 'log.inflight',
  init: () => new Map(),
  evolve(state, event) {
    const change = inflightChange(event);
    if (change?.entry) state.set(change.key, change.entry);
    else if (change) state.delete(change.key);
    return state;
  },
};

/** The tree's size and the roots of its complete subtrees, largest first (a compact range from 0). */
export interface TreeEdge {
  size: number;
  peaks: Buffer[];
}

/** The right edge of the RFC 9162 tree over the chain hashes: the root of the whole log, and what the next leaf extends. */
export const treeEdgeProjection: Projection<TreeEdge> = {
  name: 'log.tree',
  init: () => ({ size: 0, peaks: [] }),
  evolve(state, event: Recorded) {
    const range = new CompactRange(state.size, state.peaks);
    range.push(chainLeaf(event.hash));
    state.size = range.size;
    return state;
  },
};

export const LOG_FOLDS: readonly Projection<unknown>[] = [
  latestProjection,
  openProjection,
  treeEdgeProjection,
] as Projection<unknown>[];
