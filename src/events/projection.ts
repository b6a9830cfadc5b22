import type { Recorded } from './envelope.js';
import { upcast } from './upcast.js';

/**
 * Derived state as a pure fold over (upcast) events. `evolve` must not do I/O or read the clock, so that
 * replaying the log at any time yields what was observed live.
 *
 * A projection registered with a log (`EventLog.project`) is a *persisted projection*: the log keeps
 * it folded as events are appended (in the same write), stores snapshots of it stamped with the seq
 * they cover and the version of the fold's code, and a process that opens the log starts from the
 * newest snapshot instead of from seq 1. Its contract, on top of the pure fold:
 * - `name` is unique per log (two different projections under one name are refused);
 * - `version` changes whenever `init`, `evolve` or anything they call changes meaning: a snapshot of
 *   another version (or of other code: the text of `init` and `evolve` is part of the stamp) is
 *   dropped and the fold rebuilt from seq 1;
 * - the state is structured-cloneable (objects, arrays, Maps, Sets, numbers, strings, …): snapshots
 *   are written with the structured clone format, so a state restored from one is a deep copy;
 * - `evolve` may mutate and return the state it is given (the log owns it), and must not throw for
 *   events it does not understand: a throw marks the projection broken (its readers fail, the log
 *   keeps recording) until the process restarts.
 */
export interface Projection<S> {
  readonly name: string;
  /** The version of the fold's code (default 1). Bump it when the fold changes. */
  readonly version?: number;
  /**
   * The module that exports it (`import.meta.url`), so `logs verify` can load it on its worker threads
   * and fold the log again; without it verification checks only the digest the log recorded for its
   * snapshot, and says so.
   */
  readonly module?: string;
  init(): S;
  evolve(state: S, event: Recorded): S;
}

/** A projection's state and the last seq folded into it. */
export interface Folded<S> {
  seq: number;
  state: S;
}

/**
 * A projection registered with a log. `current` folds whatever was appended since (by this or any
 * other process) and returns the state at the log's head; `folded` returns the state as far as it is
 * folded, without reading: inside a write (an append's `onConflict`) the log has advanced every
 * registered projection to that write's head. Both throw `PROJECTION_BROKEN` when the fold failed.
 */
export interface ProjectionView<S> {
  readonly name: string;
  current(): Promise<Folded<S>>;
  folded(): Folded<S>;
}

/** Folds an in-memory list, for tests and for events already at hand. */
export function fold<S>(events: Iterable<Recorded>, projection: Projection<S>): S {
  let state = projection.init();
  for (const event of events) state = projection.evolve(state, upcast(event));
  return state;
}
