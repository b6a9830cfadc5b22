import { derivedViews } from './derived-views.js';
import type { EventLog } from './log.js';
import type { ProjectionView } from './projection.js';
import { statsProjection, type LogStats } from './projections/stats.js';

/**
 * Registers the derived state a log keeps (see `derivedViews`): the audit view's per-tool, per-agent
 * and per-status indexes (`logs --tool/--agent/--status`), the counters of `logs stats`, the
 * dashboard's buckets, the agents' names, and every projection and index a loaded plugin registered.
 * Every writer registers them, so they stay folded as events are appended; a reader registers them
 * to find them. Returns the view of the counters.
 */
export function registerAuditViews(log: EventLog): ProjectionView<LogStats> {
  const { projections, indexes } = derivedViews();
  for (const index of indexes) log.index?.(index);
  for (const projection of projections) log.project(projection);
  return log.project(statsProjection);
}
