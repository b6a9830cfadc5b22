import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CallGateway } from 'factorly';
import { MemoryEventLog } from 'factorly/events';
import type { McpPassthrough, McpSessionLink } from '../src/api.js';
import { introductionOf } from '../src/introduction.js';
import { SessionRegistry, type SessionLog } from '../src/session-registry.js';
import type { SessionContext } from '../src/session.js';
import { serveStdio } from '../src/stdio-server.js';

/** A pass-through that records the sessions opened and closed through it (`fail`: closing throws). */
function recordingPassthrough(fail = false) {
  const opened: string[] = [];
  const closed: string[] = [];
  let markOpened: () => void = () => undefined;
  const openedOnce = new Promise<void>((resolve) => (markOpened = resolve));
  const passthrough: McpPassthrough = {
    name: 'test',
    capabilities: () => ({}),
    introductions: () => [],
    openSession: async (session: McpSessionLink) => {
      opened.push(session.sessionId);
      markOpened();
    },
    closeSession: async (sessionId) => {
      closed.push(sessionId);
      if (fail) throw new Error('the upstream hung up first');
    },
    clientNotified: async () => undefined,
    forward: async () => ({}),
  };
  return { passthrough, opened, closed, openedOnce };
}

const gateway: CallGateway = {
  call: async () => {
    throw new Error('no calls in this test');
  },
  tools: () => [],
  watchTools: () => () => undefined,
};

/** One stdio session of the real SDK server: initialize, initialized, then the client closes stdin. */
async function oneSession(passthrough: McpPassthrough, opened: Promise<void>) {
  const log = new MemoryEventLog();
  const warnings: string[] = [];
  const sessions = new SessionRegistry(
    () => log as unknown as SessionLog,
    (message) => warnings.push(message),
  );
  const context: SessionContext = {
    gateway,
    sessions,
    mode: 'local',
    transport: 'stdio',
    passthrough,
    introduction: introductionOf({ name: 'factorly', version: '0.0.0' }, passthrough, false),
  };
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveStdio(
    context,
    { maxMessageBytes: 1 << 20, warn: () => undefined, input, output },
    new AbortController().signal,
  );
  const answered = once(output, 'data');
  input.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-client', version: '1' } } })}\n`,
  );
  await answered;
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await opened;
  input.end();
  await served;
  const types: string[] = [];
  for await (const event of log.read()) types.push(event.type);
  return { types, warnings };
}

describe('an MCP session closes through the contract it opened through', () => {
  it('closes the upstream side of a session through the pass-through when the client goes, and records it', async () => {
    const { passthrough, opened, closed, openedOnce } = recordingPassthrough();
    const { types, warnings } = await oneSession(passthrough, openedOnce);
    expect(opened).toHaveLength(1);
    expect(closed).toEqual(opened);
    expect(types).toEqual(['session.opened', 'session.closed']);
    expect(warnings).toEqual([]);
  });

  it('reports a pass-through that fails to close a session, and still records the session closed', async () => {
    const { passthrough, opened, closed, openedOnce } = recordingPassthrough(true);
    const { types, warnings } = await oneSession(passthrough, openedOnce);
    expect(closed).toEqual(opened);
    expect(types).toEqual(['session.opened', 'session.closed']);
    expect(warnings).toEqual([
      `the upstream connections of session ${opened[0]} did not close cleanly: the upstream hung up first`,
    ]);
  });
});
