import type { EventLog, ReadRange } from './log.js';
import type { Projection } from './projection.js';
import { upcast } from './upcast.js';

// Kept apart from projection.ts: replay reads a log, and the log's contract (log.ts) speaks of projections.

/** Rebuilds a projection from the log (optionally only a range of it). */
export async function replay<S>(log: EventLog, projection: Projection<S>, range: ReadRange = {}): Promise<S> {
  let state = projection.init();
  for await (const event of log.read({ from: range.from, to: range.to }))
    state = projection.evolve(state, upcast(event));
  return state;
}
