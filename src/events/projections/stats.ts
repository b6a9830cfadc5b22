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
  name: 'stats',
  init: () => ({ events: 0, calls: 0, byStatus: {}, byTool: {}, blockedBy: {}, processed: { calls: 0, originalBytes: 0, processedBytes: 0 } }),
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

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
