import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type EventLog, ReplicatedEventLog } from 'factorly/events';
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
