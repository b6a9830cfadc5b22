import type { Recorded } from './envelope.js';
import type { Inflight } from './writer.js';
import type { WriterStarted } from './catalog.js';

/** What is open under one key (`c:<callId>`, `s:<sessionId>`): the writer that opened it. */
export type InflightEntry = { writer: string; iface?: string };

/**
 * What one event opens or closes: a call requested (or a session opened) by a writer that recorded
 * itself, closed by its completion, interruption or the session's close. Shared by every log that
 * keeps what is in flight, so they agree on it.
 */
export function inflightChange(event: Recorded): { key: string; entry?: InflightEntry } | undefined {
  switch (event.type) {
    case 'call.requested':
      return event.data.writer ? { key: `c:${event.data.callId}`, entry: { writer: event.data.writer } } : undefined;
    case 'session.opened':
      return event.data.writer
        ? { key: `s:${event.data.sessionId}`, entry: { writer: event.data.writer, iface: event.data.iface } }
        : undefined;
    case 'call.completed':
    case 'call.interrupted':
      return { key: `c:${event.data.callId}` };
    case 'session.closed':
      return { key: `s:${event.data.sessionId}` };
    default:
      return undefined;
  }
}

/** The open entries as `Inflight`, with the record of each writer involved (read by `writerEvent`). */
export function listInflight(
  entries: Iterable<{ key: string; value: InflightEntry }>,
  writerEvent: (writer: string) => WriterStarted | undefined,
): Inflight {
  const inflight: Inflight = { calls: [], sessions: [], writers: new Map() };
  for (const { key, value } of entries) {
    const id = key.slice(2);
    if (key.startsWith('c:')) inflight.calls.push({ callId: id, writer: value.writer });
    else inflight.sessions.push({ sessionId: id, writer: value.writer, iface: value.iface ?? 'mcp' });
    if (!inflight.writers.has(value.writer)) {
      const record = writerEvent(value.writer);
      if (record) inflight.writers.set(value.writer, record);
    }
  }
  return inflight;
}
