import type { Bound } from './audit-query.js';
import type { EventLog } from './log.js';
import { auditProjection, type AuditEntry } from './projections/audit.js';
import { upcast } from './upcast.js';

export interface Timeline {
  lastSeq: number;
  lastAt?: string;
  calls: { entry: AuditEntry; decisions: { rule: string; decision: string; reason: string }[] }[];
}

/** Replays the log up to `until` and lists every call (of one agent, if given) with its decisions. */
export async function rebuildTimeline(log: EventLog, until: Bound, agent?: string): Promise<Timeline> {
  let state = auditProjection.init();
  const decisions = new Map<string, Timeline['calls'][number]['decisions']>();
  let lastSeq = 0;
  let lastAt: string | undefined;
  for await (const raw of log.read({ to: 'seq' in until ? until.seq : undefined })) {
    if ('time' in until && new Date(raw.at) > until.time) break;
    const event = upcast(raw);
    state = auditProjection.evolve(state, event);
    if (event.type === 'shadow.decided') {
      const list = decisions.get(event.data.callId) ?? [];
      list.push({ rule: event.data.rule, decision: event.data.decision, reason: event.data.reason });
      decisions.set(event.data.callId, list);
    }
    lastSeq = event.seq;
    lastAt = event.at;
  }
  const calls = state.order
    .map((id) => state.byId.get(id)!)
    .filter((entry) => agent === undefined || entry.agentId === agent)
    .map((entry) => ({ entry, decisions: decisions.get(entry.callId) ?? [] }));
  return { lastSeq, lastAt, calls };
}
