import { afterAll, describe, it } from 'vitest';
import { inject } from 'vitest';
import { batchStreamContract } from 'factorly/testing';
import { natsSettingsOf } from '../src/nats-settings.js';
import { NatsBatchStream } from '../src/nats-stream.js';
import { freshStream } from './open-nats.js';

// The transport alone, on the shared three-server JetStream cluster: each case a stream of its own,
// each node its own connection to it.
batchStreamContract({ describe, it, afterAll }, 'nats (3-server JetStream cluster)', {
  async create() {
    const settings = natsSettingsOf({ servers: inject('natsServers'), stream: freshStream('bs'), replicas: 3 });
    return { node: () => new NatsBatchStream(settings, async () => undefined) };
  },
});
