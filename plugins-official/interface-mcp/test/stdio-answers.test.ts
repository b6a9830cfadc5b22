import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallGateway, CallOutcome } from 'factorly';
import { MemoryEventLog } from 'factorly/events';
import { toolDefinition } from 'factorly/testing';
import { introductionOf } from '../src/introduction.js';
import { SessionRegistry, type SessionLog } from '../src/session-registry.js';
import type { SessionContext } from '../src/session.js';
import { serveStdio } from '../src/stdio-server.js';

// Over stdio every request that is JSON gets an answer (the SDK's strict schemas would otherwise
// refuse it silently), and a response from the client (to an elicitation) is taken as one.

type Line = {
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
};

/** `ask` asks the client (an elicitation) and returns its answer as the call's output. */
const gateway: CallGateway = {
  call: async (request): Promise<CallOutcome> => {
    const answer = await request.client!.request('elicitation/create', {
      message: 'go on?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return { callId: 'c1', status: 'success', durationMs: 0, output: JSON.stringify(answer), exitCode: 0 };
  },
  tools: () => [toolDefinition({ name: 'ask' })],
  watchTools: () => () => undefined,
};

const input = new PassThrough();
const output = new PassThrough();
const warnings: string[] = [];
const lines: Line[] = [];
const waiting: ((line: Line) => void)[] = [];
let served: Promise<void>;

/** The next line the server writes. */
const next = (): Promise<Line> =>
  lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiting.push(resolve));
const send = (text: string): Promise<Line> => {
  input.write(`${text}\n`);
  return next();
};
let pings = 100;
/** A ping answered next: the message before it got no answer of its own, and the session goes on. */
const pingAnswered = async () =>
  expect(await send(JSON.stringify({ jsonrpc: '2.0', id: ++pings, method: 'ping' }))).toEqual({
    jsonrpc: '2.0',
    id: pings,
    result: {},
  });

beforeAll(async () => {
  const log = new MemoryEventLog();
  const sessions = new SessionRegistry(
    () => log as unknown as SessionLog,
    (message) => warnings.push(message),
  );
  const context: SessionContext = {
    gateway,
    sessions,
    mode: 'local',
    transport: 'stdio',
    introduction: introductionOf({ name: 'factorly', version: '0.0.0' }, undefined, false),
  };
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const line = JSON.parse(buffered.slice(0, end)) as Line;
      buffered = buffered.slice(end + 1);
      const taker = waiting.shift();
      if (taker) taker(line);
      else lines.push(line);
    }
  });
  served = serveStdio(
    context,
    { maxMessageBytes: 1 << 20, warn: (message) => warnings.push(message), input, output },
    new AbortController().signal,
  );
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: {} },
      clientInfo: { name: 't', version: '1' },
    },
  };
  expect(await send(JSON.stringify(initialize))).toMatchObject({ id: 0, result: { serverInfo: { name: 'factorly' } } });
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await pingAnswered();
});

afterAll(async () => {
  input.end();
  await served;
});

describe('stdio answers every request that is JSON', () => {
  it.each([
    ['"__proto__"', '{"jsonrpc":"2.0","id":20,"method":"ping","__proto__":{"polluted":true}}', 20],
    ['"y"', '{"jsonrpc":"2.0","id":"r-21","y":1,"method":"ping"}', 'r-21'],
  ])('serves a request with an extra top-level member (%s), which is ignored', async (_, text, id) => {
    expect(await send(text)).toEqual({ jsonrpc: '2.0', id, result: {} });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await pingAnswered();
  });

  it('answers a message with an id but no method, and neither result nor error, with -32600', async () => {
    expect(await send('{"jsonrpc":"2.0","id":12}')).toMatchObject({
      jsonrpc: '2.0',
      id: 12,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*no "method"/) },
    });
    await pingAnswered();
  });

  it('answers a request the SDK would refuse silently (a fractional id, a _meta that is not an object) with -32600', async () => {
    expect(await send('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/"id" must be a string or a number \(a whole one\)/) },
    });
    expect(await send('{"jsonrpc":"2.0","id":23,"method":"ping","params":{"_meta":5}}')).toMatchObject({
      id: 23,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*params\._meta/) },
    });
    await pingAnswered();
  });

  it('still asks the SDK schema about a progress token of the wrong type, and a result beside a method', async () => {
    expect(
      await send('{"jsonrpc":"2.0","id":24,"method":"ping","params":{"_meta":{"progressToken":1.5}}}'),
    ).toMatchObject({
      id: 24,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: .*progressToken/) },
    });
    expect(await send('{"jsonrpc":"2.0","id":25,"method":"ping","result":{}}')).toMatchObject({
      id: 25,
      error: { code: -32600, message: expect.stringMatching(/^Invalid Request: /) },
    });
    await pingAnswered();
  });

  it('takes a response to its own request (an elicitation) as the answer, extra members and all, and ignores one for an unknown id', async () => {
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'ask' } })}\n`);
    const asked = await next();
    expect(asked).toMatchObject({ method: 'elicitation/create', params: { message: 'go on?' } });
    const answer = { action: 'accept', content: {} };
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: asked.id, result: answer, note: 'extra' })}\n`);
    expect(await next()).toMatchObject({
      jsonrpc: '2.0',
      id: 30,
      result: { content: [{ type: 'text', text: JSON.stringify(answer) }] },
    });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 998, error: { code: -1, message: 'late' } })}\n`);
    await pingAnswered();
  });
});
