import type { Recorded } from '../envelope.js';
import type { Projection } from '../projection.js';

export interface LogStats {
  events: number;
  calls: number;
  byStatus: Record<string, number>;
  byTool: Record<string, number>;
  /** Blocked calls by what stopped them (unknown_tool, invalid, deny, rate_limited, …). */
  blockedBy: Record<string, number>;
  /** Calls whose output was processed, with byte counts before and after. */
  processed: { calls: number; originalBytes: number; processedBytes: number };
}

/** Counters for `factorly logs stats`, folded in one pass. */
export const statsProjection: Projection<LogStats> = {
  module: import.meta.url,
  name: 'stats',
  // Kept as a persisted projection (snapshots beside the log): bump when the fold changes.
  version: 1,
  init: () => ({
    events: 0,
    calls: 0,
    byStatus: counts(),
    byTool: counts(),
    blockedBy: counts(),
    processed: { calls: 0, originalBytes: 0, processedBytes: 0 },
  }),
  evolve(state, event: Recorded) {
    state.events += 1;
    if (event.type === 'call.requested') {
      state.calls += 1;
      bump(state.byTool, event.data.tool);
    } else if (event.type === 'call.interrupted') {
      bump(state.byStatus, 'interrupted');
    } else if (event.type === 'call.completed') {
      bump(state.byStatus, event.data.status);
      if (event.data.status === 'blocked') bump(state.blockedBy, event.data.blockedBy ?? 'unknown');
      const sizes = event.data as { originalBytes?: number; processedBytes?: number };
      if (typeof sizes.originalBytes === 'number' && typeof sizes.processedBytes === 'number') {
        state.processed.calls += 1;
        state.processed.originalBytes += sizes.originalBytes;
        state.processed.processedBytes += sizes.processedBytes;
      }
    }
    return state;
  },
};

/** Counts keyed by names agents and plugins choose: no prototype, so `constructor` or `__proto__` is just a name. */
function counts(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}

/** Own keys only, defined rather than assigned, so it also holds on a state restored as a plain object. */
function bump(table: Record<string, number>, key: string): void {
  const seen = Object.hasOwn(table, key) ? table[key] : 0;
  Object.defineProperty(table, key, { value: seen + 1, writable: true, enumerable: true, configurable: true });
}
