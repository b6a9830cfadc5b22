import { isDeepStrictEqual } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { messageOf } from '../base/errors.js';
import type { Recorded } from './envelope.js';
import type { Projection } from './projection.js';
import { upcast } from './upcast.js';

/** A stored snapshot verification folds the log to and compares: its projection, seq and state bytes. */
export interface FoldTarget {
  name: string;
  seq: number;
  state: Uint8Array;
}

/** Each projection's state after a stretch of the log (what crosses to the thread folding the next stretch). */
export type FoldStates = Record<string, unknown>;

/** How a snapshot compared with the fold of the events up to its seq. */
export interface FoldComparison {
  name: string;
  seq: number;
  equal: boolean;
  /** Why the fold could not be compared (it threw). */
  failed?: string;
}

/**
 * The re-fold `logs verify` does, one stretch of the log at a time: the events of a stretch are kept
 * (upcast, as a log folds them) while the stretch is checked, then folded once the states after the
 * stretch before it are known; at each snapshot's seq the fold is compared with the snapshot. A
 * projection stops folding past its snapshot.
 */
export class StretchFold {
  private readonly kept: Recorded[] = [];
  private readonly until: number;
  private readonly plan: { projection: Projection<unknown>; target: FoldTarget }[];

  constructor(projections: readonly Projection<unknown>[], targets: readonly FoldTarget[]) {
    this.plan = projections.flatMap((projection) => {
      const target = targets.find((candidate) => candidate.name === projection.name);
      return target ? [{ projection, target }] : [];
    });
    this.until = Math.max(0, ...this.plan.map(({ target }) => target.seq));
  }

  /** Whether a stretch from `from` has events to fold (it starts at or before the last snapshot's seq). */
  static needed(from: number, targets: readonly FoldTarget[]): boolean {
    return targets.some((target) => target.seq >= from);
  }

  keep(event: Recorded): void {
    if (event.seq <= this.until) this.kept.push(upcast(event));
  }

  /** Folds what was kept onto `states` (undefined: from each projection's `init`), comparing snapshots on the way. */
  fold(states: FoldStates | undefined): { states: FoldStates; compared: FoldComparison[] } {
    const first = this.kept[0]?.seq ?? Number.POSITIVE_INFINITY;
    const live = this.plan
      .filter(({ projection, target }) => target.seq >= first && (states === undefined || projection.name in states))
      .map(({ projection, target }) => ({
        projection,
        target,
        state: states === undefined ? projection.init() : states[projection.name],
        done: false,
      }));
    const compared: FoldComparison[] = [];
    for (const event of this.kept) {
      for (const folding of live) {
        if (folding.done || event.seq > folding.target.seq) continue;
        try {
          folding.state = folding.projection.evolve(folding.state, event);
        } catch (error) {
          compared.push({ name: folding.target.name, seq: folding.target.seq, equal: false, failed: messageOf(error) });
          folding.done = true;
          continue;
        }
        if (event.seq === folding.target.seq) {
          compared.push(compare(folding.target, folding.state));
          folding.done = true;
        }
      }
    }
    this.kept.length = 0;
    const next: FoldStates = {};
    for (const folding of live) if (!folding.done) next[folding.projection.name] = folding.state;
    return { states: next, compared };
  }
}

/** A snapshot's state against the fold: the same bytes, or failing that the same value (a Map's order may differ). */
function compare(target: FoldTarget, folded: unknown): FoldComparison {
  const same = { name: target.name, seq: target.seq };
  if (Buffer.from(serialize(folded)).equals(Buffer.from(target.state))) return { ...same, equal: true };
  try {
    return { ...same, equal: isDeepStrictEqual(deserialize(target.state), folded) };
  } catch {
    return { ...same, equal: false };
  }
}
