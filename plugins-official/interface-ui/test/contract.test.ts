import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confirmChannelContract, eventually, interfaceContract } from 'factorly/testing';
import { MemoryEventLog } from 'factorly/events';
import { beforeAll, describe, it } from 'vitest';
import { UiConfirmChannel } from '../src/confirm-channel.js';
// The built plugin: its pages are served from the package's static/ beside dist/.
import { plugin } from '@factorly/plugin-interface-ui';

const test = { describe, it };

const port = { free: 0 };
beforeAll(async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  port.free = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

interfaceContract(test, {
  plugin,
  name: 'ui',
  get options() {
    return { host: '127.0.0.1', port: port.free, open: false };
  },
  // Serving once its pages answer (without the session token: 401, but answered).
  ready: (_kernel, options) =>
    eventually(async () => void (await fetch(`http://127.0.0.1:${String(options.port)}/`)), 10_000),
});

// A person answers in the UI: the UI records `confirm.answered`, which the waiting channel follows.
const log = new MemoryEventLog();
confirmChannelContract(test, {
  name: 'ui',
  create: () => new UiConfirmChannel(mkdtempSync(join(tmpdir(), 'factorly-ui-contract-')), () => log),
  answer: async (request, approved) =>
    void (await log.append([
      { type: 'confirm.answered', data: { callId: request.callId, channel: 'ui', approved, by: 'contract' } },
    ])),
});
