import { AUDIT_INDEXES } from './event-index.js';
import type { EventLog } from './log.js';
import type { ProjectionView } from './projection.js';
import { statsProjection, type LogStats } from './projections/stats.js';

/**
 * Registers what the audit view reads with a log: the per-tool, per-agent and per-status indexes
 * (`logs --tool/--agent/--status`) and the counters of `logs stats`. Every writer registers them, so
 * they stay folded as events are appended; a reader registers them to find them.
 */
export function registerAuditViews(log: EventLog): ProjectionView<LogStats> {
  for (const index of AUDIT_INDEXES) log.index?.(index);
  return log.project(statsProjection);
}
