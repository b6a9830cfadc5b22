import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { eventually, interfaceContract, personChannelContract } from 'factorly/testing';
import type { ClientLink } from 'factorly';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ElicitationChannel } from '../src/elicit-channel.js';
import { plugin } from '../src/plugin.js';
import { SessionRegistry } from '../src/session-registry.js';

const test = { describe, it };

// A port that is taken for the whole file (the refusal case), and one that was free a moment ago.
let taken: Server;
const ports = { taken: 0, free: 0 };
beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  ports.taken = (taken.address() as AddressInfo).port;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  ports.free = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => void taken.close());

interfaceContract(test, {
  plugin,
  name: 'mcp',
  get options() {
    return { transport: 'http' as const, host: '127.0.0.1', port: ports.free };
  },
  // Serving once its endpoint answers HTTP (a GET without a session is refused, but answered).
  ready: (_kernel, options) =>
    eventually(async () => void (await fetch(`http://127.0.0.1:${String(options.port)}/mcp`)), 10_000),
  get invalid() {
    return {
      options: { transport: 'http' as const, host: '127.0.0.1', port: ports.taken },
      message: /is already in use/,
    };
  },
});

// An MCP client that can elicit, answering its oldest question when the test says so.
const asked: ((result: Record<string, unknown>) => void)[] = [];
const client: ClientLink = {
  sessionId: 'S',
  capabilities: { elicitation: {} },
  notify: async () => undefined,
  request: (_method, _params, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('aborted'));
      asked.push(resolve);
      signal?.addEventListener(
        'abort',
        () => {
          asked.splice(asked.indexOf(resolve), 1);
          reject(new Error('aborted'));
        },
        { once: true },
      );
    }),
};
personChannelContract(test, {
  name: 'mcp-elicitation',
  kinds: ['confirm', 'question'],
  questionActions: ['accept', 'decline', 'cancel'],
  create: () =>
    new ElicitationChannel(
      new SessionRegistry(
        () => {
          throw new Error('no log');
        },
        () => undefined,
      ),
    ),
  confirm: { iface: 'mcp', sessionId: 'S', client },
  question: { iface: 'mcp', sessionId: 'S', client },
  answer: (request, { action, value }) =>
    eventually(() => {
      const reply = asked.shift();
      if (!reply) throw new Error('not asked yet');
      if (request.kind === 'confirm') reply({ action: 'accept', content: { approve: action === 'accept' } });
      else reply({ action, ...(action === 'accept' ? { content: { [request.question.name]: value } } : {}) });
    }),
});
