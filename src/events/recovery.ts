import type { NewEvent } from './envelope.js';
import type { EventLog } from './log.js';
import { writerEnded } from './writer.js';

export const INTERRUPTED_REASON = 'outcome unknown: the process ended before the call completed';

/**
 * Closes what writers that are gone left open: each of their calls without a completion gets
 * `call.interrupted`, each of their sessions `session.closed` with the reason. Ids derive from the
 * call and session, so two processes recovering at once record each once. Returns how many.
 */
export async function recoverInterrupted(log: EventLog, self?: string): Promise<number> {
  const inflight = await log.inflight?.();
  if (!inflight) return 0;
  const ended = new Map([...inflight.writers].filter(([writer, record]) => writer !== self && writerEnded(record)));
  if (ended.size === 0) return 0;
  const events: NewEvent[] = [];
  for (const { callId, writer } of inflight.calls) {
    const record = ended.get(writer);
    if (!record) continue;
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
