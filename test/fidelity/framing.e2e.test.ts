import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO } from '../helpers/project.js';
import { isolatedEnv, spawnListening, type Listening } from '../helpers/listening.js';
import { project, removeProjects } from './agents.js';

// Malformed messages, over stdio and Streamable HTTP: each is answered as JSON-RPC 2.0 says, and the
// session goes on (a ping right after it is answered).

const UPSTREAM = resolve(REPO, 'test', 'fixtures', 'conformance-upstream', 'server.mjs');
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'framing', version: '1' } },
};
type Reply = { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** Malformed messages, the JSON-RPC code each is answered with, and factorly's stable code in `error.data`. */
const CASES: { name: string; text: string; code: number; factorlyCode: string; id: unknown; says: RegExp }[] = [
  {
    name: 'invalid JSON',
    text: '{"jsonrpc": "2.0", "id": 1, "method": ',
    code: -32700,
    factorlyCode: 'MESSAGE_NOT_JSON',
    id: null,
    says: /not JSON/,
  },
  {
    name: 'a wrong jsonrpc version',
    text: '{"jsonrpc":"1.0","id":7,"method":"ping"}',
    code: -32600,
    factorlyCode: 'REQUEST_INVALID',
    id: 7,
    says: /"jsonrpc" must be "2.0"/,
  },
  {
    name: 'a batch',
    text: '[{"jsonrpc":"2.0","id":8,"method":"ping"}]',
    code: -32600,
    factorlyCode: 'REQUEST_INVALID',
    id: null,
    says: /batches are not supported/,
  },
  {
    name: 'an object id',
    text: '{"jsonrpc":"2.0","id":{"n":9},"method":"ping"}',
    code: -32600,
    factorlyCode: 'REQUEST_INVALID',
    id: null,
    says: /"id" must be a string or a number/,
  },
  {
    name: 'an id without a method, a result or an error',
    text: '{"jsonrpc":"2.0","id":12}',
    code: -32600,
    factorlyCode: 'REQUEST_INVALID',
    id: 12,
    says: /no "method" must be a response/,
  },
  {
    name: 'a non-string tool name',
    text: '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":5}}',
    code: -32602,
    factorlyCode: 'PARAMS_INVALID',
    id: 10,
    says: /"name" must be a non-empty string/,
  },
];

/** A `{ … "id": <id> }` tools/call message of about `bytes` bytes. */
const bigMessage = (id: number, bytes: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'tools/call',
    params: { name: 'test_simple_text', arguments: { pad: 'x'.repeat(bytes) } },
    id,
  });

describe('framing over stdio (factorly wrap)', () => {
  let child: ChildProcessWithoutNullStreams;
  const replies: Reply[] = [];
  const waiting: ((reply: Reply) => void)[] = [];
  let stderr = '';
  const next = (): Promise<Reply> =>
    replies.length > 0 ? Promise.resolve(replies.shift()!) : new Promise((done) => waiting.push(done));
  const send = async (text: string): Promise<Reply> => {
    child.stdin.write(`${text}\n`);
    return next();
  };
  let pings = 100;
  const pingWorks = async () =>
    expect(await send(JSON.stringify({ jsonrpc: '2.0', id: ++pings, method: 'ping' }))).toEqual({
      jsonrpc: '2.0',
      id: pings,
      result: {},
    });

  beforeAll(async () => {
    const root = project({ '.factorly/.keep': '' });
    child = spawn(process.execPath, [BIN, 'wrap', process.execPath, UPSTREAM, 'stdio'], {
      cwd: root,
      env: isolatedEnv(root),
    });
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const reply = JSON.parse(buffered.slice(0, end)) as Reply;
        buffered = buffered.slice(end + 1);
        const taker = waiting.shift();
        if (taker) taker(reply);
        else replies.push(reply);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    expect(await send(JSON.stringify(INITIALIZE))).toMatchObject({
      id: 0,
      result: { serverInfo: { name: 'conformance-upstream' } },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await pingWorks();
  }, 60_000);

  afterAll(async () => {
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    await exited;
    removeProjects();
  });

  it.each(CASES)(
    'answers $name with $code in one line, and keeps serving',
    async ({ text, code, factorlyCode, id, says }) => {
      const reply = await send(text);
      expect(reply).toMatchObject({
        jsonrpc: '2.0',
        id,
        error: { code, message: expect.stringMatching(says), data: { factorlyCode } },
      });
      expect(reply.error!.message).not.toContain('\n');
      await pingWorks();
    },
  );

  it('serves a request with members JSON-RPC does not define ("__proto__", "y"), ignoring them', async () => {
    expect(await send('{"jsonrpc":"2.0","id":13,"method":"ping","__proto__":{"x":1},"y":2}')).toEqual({
      jsonrpc: '2.0',
      id: 13,
      result: {},
    });
  });

  it('answers a message over the default 4 MiB limit with an error naming the limit, says so on stderr, and keeps serving', async () => {
    const reply = await send(bigMessage(11, 5 * 1024 * 1024));
    expect(reply).toMatchObject({
      id: 11,
      error: {
        code: -32600,
        message: expect.stringMatching(/over the limit of 4194304 bytes \(--max-message-size\)/),
        data: { factorlyCode: 'REQUEST_INVALID' },
      },
    });
    expect(stderr).toMatch(/factorly: refused a message of \d+ bytes on stdin: over the limit of 4194304 bytes/);
    await pingWorks();
    expect(await send(bigMessage(12, 1024))).toMatchObject({ id: 12, result: { content: [{ type: 'text' }] } });
  });
});

describe('framing over Streamable HTTP (factorly wrap --port --max-message-size 64KiB)', () => {
  let served: Listening;
  let sessionId = '';
  /** POSTs one body in the session and reads the JSON-RPC reply (JSON, or the first event of an SSE stream). */
  const post = async (body: string): Promise<{ status: number; reply: Reply }> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    const response = await fetch(served.url, { method: 'POST', headers, body });
    sessionId ||= response.headers.get('mcp-session-id') ?? '';
    const text = await response.text();
    const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
    return { status: response.status, reply: JSON.parse(data) as Reply };
  };
  let pings = 100;
  const pingWorks = async () =>
    expect(await post(JSON.stringify({ jsonrpc: '2.0', id: ++pings, method: 'ping' }))).toEqual({
      status: 200,
      reply: { jsonrpc: '2.0', id: pings, result: {} },
    });

  beforeAll(async () => {
    const root = project({ '.factorly/.keep': '' });
    served = await spawnListening(
      [BIN, 'wrap', '--port', '0', '--max-message-size', '64KiB', process.execPath, UPSTREAM, 'stdio'],
      { cwd: root, env: isolatedEnv(root) },
    );
    expect((await post(JSON.stringify(INITIALIZE))).reply).toMatchObject({
      id: 0,
      result: { serverInfo: { name: 'conformance-upstream' } },
    });
    expect(sessionId).not.toBe('');
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })).catch(() => undefined);
    await pingWorks();
  }, 60_000);

  afterAll(async () => {
    await served.stop();
    removeProjects();
  });

  it.each(CASES)('answers $name with $code, and keeps serving', async ({ text, code, factorlyCode, id, says }) => {
    const { status, reply } = await post(text);
    expect(reply).toMatchObject({
      jsonrpc: '2.0',
      id,
      error: { code, message: expect.stringMatching(says), data: { factorlyCode } },
    });
    expect(status).toBe(code === -32602 ? 200 : 400);
    await pingWorks();
  });

  it('serves a request with members JSON-RPC does not define ("__proto__", "y"), ignoring them', async () => {
    expect(await post('{"jsonrpc":"2.0","id":13,"method":"ping","__proto__":{"x":1},"y":2}')).toEqual({
      status: 200,
      reply: { jsonrpc: '2.0', id: 13, result: {} },
    });
  });

  it('answers a body over the configured limit with 413 and a JSON-RPC error, says so on stderr, and keeps serving', async () => {
    const { status, reply } = await post(bigMessage(11, 100 * 1024));
    expect(status).toBe(413);
    expect(reply).toMatchObject({
      error: {
        code: -32600,
        message: expect.stringMatching(/over the limit of 65536 bytes/),
        data: { factorlyCode: 'REQUEST_INVALID' },
      },
    });
    expect(served.stderr()).toMatch(/refused an HTTP request body of more than 65536 bytes/);
    await pingWorks();
  });
});
