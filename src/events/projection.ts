import type { Recorded } from './envelope.js';
import type { EventLog, ReadRange } from './log.js';
import { upcast } from './upcast.js';

/**
 * Derived state as a pure fold over (upcast) events. `evolve` must not do I/O or read the clock, so that
 * replaying the log at any time yields what was observed live.
 */
export interface Projection<S> {
  readonly name: string;
  init(): S;
  evolve(state: S, event: Recorded): S;
}

/** Rebuilds a projection from the log (optionally only a range of it). */
export async function replay<S>(log: EventLog, projection: Projection<S>, range: ReadRange = {}): Promise<S> {
  let state = projection.init();
  for await (const event of log.read({ from: range.from, to: range.to })) state = projection.evolve(state, upcast(event));
  return state;
}

/** Folds an in-memory list, for tests and for events already at hand. */
export function fold<S>(events: Iterable<Recorded>, projection: Projection<S>): S {
  let state = projection.init();
  for (const event of events) state = projection.evolve(state, upcast(event));
  return state;
}
