import type { Recorded } from './envelope.js';
import type { EventLog } from './log.js';
import { fold } from './projection.js';
import { auditProjection, type AuditEntry } from './projections/audit.js';

/** Which calls to show. Every field is optional; all given ones must match. */
export interface AuditFilter {
  /** Substring of the tool name. */
  tool?: string;
  status?: string;
  iface?: string;
  agent?: string;
  /** Inclusive bounds, as seqs or times. */
  since?: Bound;
  until?: Bound;
}

export type Bound = { seq: number } | { time: Date };

const CALL_TYPES = new Set(['call.requested', 'call.params_coerced', 'call.completed', 'call.interrupted', 'shadow.decided']);

/**
 * The newest `limit` calls matching `filter`, oldest first. Reads the log backwards and stops as
 * soon as it has enough, so the cost follows the answer rather than the size of the log. A call's
 * events all come after its `call.requested`, so meeting that event completes the call's group.
 */
export async function recentCalls(log: EventLog, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
  const pending = new Map<string, Recorded[]>();
  const results: AuditEntry[] = [];
  const to = filter.until && 'seq' in filter.until ? filter.until.seq : undefined;
  for await (const event of log.read({ reverse: true, to })) {
    if (results.length >= limit || isBefore(event, filter.since)) break;
    if (!CALL_TYPES.has(event.type)) continue;
    const callId = (event.data as { callId: string }).callId;
    const group = pending.get(callId) ?? [];
    group.push(event);
    if (event.type !== 'call.requested') {
      pending.set(callId, group);
      continue;
    }
    pending.delete(callId);
    const entry = fold(group.reverse(), auditProjection).byId.get(callId);
    if (entry && matches(entry, filter)) results.push(entry);
  }
  return results.reverse();
}

/** Whether one audit entry passes the filter (used live by `logs --follow` too). */
export function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.tool !== undefined && !entry.tool.includes(filter.tool)) return false;
  if (filter.status !== undefined && (entry.status ?? 'running') !== filter.status) return false;
  if (filter.iface !== undefined && entry.iface !== filter.iface) return false;
  if (filter.agent !== undefined && entry.agentId !== filter.agent) return false;
  if (filter.until && 'time' in filter.until && new Date(entry.requestedAt) > filter.until.time) return false;
  return true;
}

function isBefore(event: Recorded, bound: Bound | undefined): boolean {
  if (!bound) return false;
  return 'seq' in bound ? event.seq < bound.seq : new Date(event.at) < bound.time;
}
