import type { Recorded } from './envelope.js';

type AnyValue = { stringValue: string } | { intValue: string } | { boolValue: boolean };
type Attribute = { key: string; value: AnyValue };

/**
 * One event as an OpenTelemetry log record (OTLP/JSON): the event type is the body, the envelope
 * and the call's main fields are attributes, the full data is kept as JSON text so nothing is lost.
 */
export function otlpRecord(event: Recorded) {
  const data = event.data as unknown as Record<string, unknown>;
  const attributes: Attribute[] = [
    str('factorly.seq', String(event.seq)),
    str('factorly.event_id', event.id),
    str('factorly.event_type', event.type),
    str('factorly.hash', event.hash),
    str('factorly.prev_hash', event.prevHash),
    str('factorly.data', JSON.stringify(data)),
  ];
  for (const key of [
    'callId',
    'parentId',
    'rootId',
    'tool',
    'iface',
    'agentId',
    'status',
    'decision',
    'rule',
  ] as const) {
    if (typeof data[key] === 'string') attributes.push(str(`factorly.${snake(key)}`, data[key] as string));
  }
  if (typeof data.exitCode === 'number')
    attributes.push({ key: 'factorly.exit_code', value: { intValue: String(data.exitCode) } });
  const nanos = BigInt(Date.parse(event.at)) * 1_000_000n;
  return {
    timeUnixNano: nanos.toString(),
    observedTimeUnixNano: nanos.toString(),
    severityNumber: severity(event).number,
    severityText: severity(event).text,
    body: { stringValue: event.type },
    attributes,
  };
}

/** An OTLP `ExportLogsServiceRequest` holding the given events. */
export function otlpDocument(events: readonly Recorded[], version: string) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', 'factorly'), str('service.version', version)] },
        scopeLogs: [{ scope: { name: 'factorly.events', version }, logRecords: events.map(otlpRecord) }],
      },
    ],
  };
}

function severity(event: Recorded): { number: number; text: string } {
  const data = event.data as { status?: string; decision?: string };
  if (data.status === 'error' || event.type === 'plugin.failed') return { number: 17, text: 'ERROR' };
  if (data.status === 'blocked' || data.status === 'cancelled' || (data.decision && data.decision !== 'allow'))
    return { number: 13, text: 'WARN' };
  return { number: 9, text: 'INFO' };
}

function str(key: string, value: string): Attribute {
  return { key, value: { stringValue: value } };
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
