import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, interfaceContract, personChannelContract } from 'factorly/testing';
import { sealAnswer } from 'factorly';
import { MemoryEventLog } from 'factorly/events';
import { beforeAll, describe, it } from 'vitest';
import { UiPersonChannel } from '../src/person-channel.js';
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

// A person answers in the UI: the UI records `confirm.answered` (or `ask.answered`, the answer
// sealed to the question's key), which the waiting channel follows.
const log = new MemoryEventLog();
personChannelContract(test, {
  name: 'ui',
  kinds: ['confirm', 'question'],
  questionActions: ['accept', 'cancel'],
  create: () => new UiPersonChannel(mkdtempSync(join(tmpdir(), 'factorly-ui-contract-')), () => log),
  answer: async (request, { action, value }) => {
    const { callId } = request;
    if (request.kind === 'confirm') {
      const approved = action === 'accept';
      await log.append([{ type: 'confirm.answered', data: { callId, channel: 'ui', approved, by: 'contract' } }]);
      return;
    }
    const sealed = action === 'accept' ? sealAnswer(request.replyKey, JSON.stringify(value)) : undefined;
    await log.append([{ type: 'ask.answered', data: { callId, channel: 'ui', action, sealed, by: 'contract' } }]);
  },
});
