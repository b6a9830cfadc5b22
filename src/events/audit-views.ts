import { AUDIT_INDEXES } from './event-index.js';
import type { EventLog } from './log.js';
import type { ProjectionView } from './projection.js';
import { agentActivityProjection } from './projections/agent-activity.js';
import { dashboardProjection } from './projections/dashboard.js';
import { sessionsProjection } from './projections/sessions.js';
import { statsProjection, type LogStats } from './projections/stats.js';

/**
 * Registers what the audit view and the web UI read with a log: the per-tool, per-agent and
 * per-status indexes (`logs --tool/--agent/--status`), the counters of `logs stats`, the dashboard's
 * buckets, the agents' names and what each agent did. Every writer registers them, so they stay folded as events are
 * appended; a reader registers them to find them.
 */
export function registerAuditViews(log: EventLog): ProjectionView<LogStats> {
  for (const index of AUDIT_INDEXES) log.index?.(index);
  log.project(dashboardProjection);
  log.project(sessionsProjection);
  log.project(agentActivityProjection);
  return log.project(statsProjection);
}
