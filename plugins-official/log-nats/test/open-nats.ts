import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type EventLog, type Recorded, ReplicatedEventLog } from 'factorly/events';
import { natsSettingsOf, type NatsLogSettings } from '../src/nats-settings.js';
import { NatsBatchStream } from '../src/nats-stream.js';

/** A stream name no other test uses. */
export function freshStream(prefix = 't'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** The shared test cluster's log on `stream` (3 replicas), as the engine opens it. */
export function natsLog(stream: string, extra: Partial<NatsLogSettings> = {}): ReplicatedEventLog {
  const settings = { ...natsSettingsOf({ servers: inject('natsServers'), stream, replicas: 3 }), ...extra };
  return new ReplicatedEventLog(new NatsBatchStream(settings, async () => undefined), {
    timeoutMs: settings.timeoutMs,
  });
}

export async function closeAll(logs: EventLog[]): Promise<void> {
  await Promise.all(logs.splice(0).map((log) => log.close()));
}

/** Every event of `stream`, as a node that joins it now reads them. */
export async function streamEvents(stream: string, extra: Partial<NatsLogSettings> = {}): Promise<Recorded[]> {
  const log = natsLog(stream, extra);
  const events: Recorded[] = [];
  for await (const event of log.read()) events.push(event);
  await log.close();
  return events;
}
