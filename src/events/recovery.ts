import type { NewEvent } from './envelope.js';
import type { EventLog } from './log.js';
import { writerEnded } from './writer.js';
import { endsCall } from './call-events.js';

export const INTERRUPTED_REASON = 'outcome unknown: the process ended before the call completed';

/**
 * Closes what writers that are gone left open: each of their calls without a completion gets
 * `call.interrupted`, each of their sessions `session.closed` with the reason. Ids derive from the
 * call and session, so two processes recovering at once record each once. Returns how many.
 */
/**
 * An inflight entry checked against the call's own events before it is acted on: a call that writer
 * requested and nothing closed. An entry edited into the index never makes a completed call read as
 * interrupted (`logs verify` names such an entry).
 */
async function stillOpen(log: EventLog, callId: string, writer: string): Promise<boolean> {
  const events = await log.readCall(callId);
  const requested = events.some((event) => event.type === 'call.requested' && event.data.writer === writer);
  return requested && !events.some((event) => endsCall(event.type));
}

export async function recoverInterrupted(log: EventLog, self?: string): Promise<number> {
  const inflight = await log.inflight?.();
  if (!inflight) return 0;
  const ended = new Map([...inflight.writers].filter(([writer, record]) => writer !== self && writerEnded(record)));
  if (ended.size === 0) return 0;
  const events: NewEvent[] = [];
  for (const { callId, writer } of inflight.calls) {
    const record = ended.get(writer);
    if (!record || !(await stillOpen(log, callId, writer))) continue;
    const reason = `${INTERRUPTED_REASON} (pid ${record.pid} on ${record.host}, started ${record.startedAt})`;
    events.push({ id: `interrupted-${callId}`, type: 'call.interrupted', data: { callId, writer, reason } });
  }
  for (const { sessionId, writer, iface } of inflight.sessions) {
    const record = ended.get(writer);
    if (record)
      events.push({
        id: `closed-${sessionId}`,
        type: 'session.closed',
        data: { sessionId, iface, reason: `the process serving it ended (pid ${record.pid} on ${record.host})` },
      });
  }
  if (events.length > 0) await log.append(events);
  return events.length;
}
