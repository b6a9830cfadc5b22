import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { makeProject } from '../../../test/helpers/project.js';
import { SERVE_CONFIG } from './fixture-config.js';
import { eventually, projectEvents, startHttpServe, type HttpServe } from './serve-process.js';

// Over Streamable HTTP a POST is answered as plain JSON when nothing can be sent on its stream before
// the answer (see src/answer-mode.ts), and as an SSE stream otherwise; one session mixes both.

const TOKEN = 'tok-answer-mode-51c2';
const VERSION = '2025-06-18';
let serve: HttpServe;
let root: string;

beforeAll(async () => {
  root = makeProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
  serve = await startHttpServe(root, ['--http-token', TOKEN]);
});
afterAll(async () => {
  await serve?.stop();
  rmSync(root, { recursive: true, force: true });
});

interface Answer {
  status: number;
  type: string;
  /** The JSON-RPC messages of the answer: the body itself, or every `data:` line of the stream. */
  messages: Record<string, unknown>[];
  /** The `mcp-session-id` it carried, if any. */
  sessionId: string | null;
}

async function post(body: unknown, sessionId?: string): Promise<Answer> {
  const response = await fetch(serve.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  const messages = type.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
    : text
      ? [JSON.parse(text) as Record<string, unknown>]
      : [];
  return { status: response.status, type, messages, sessionId: response.headers.get('mcp-session-id') };
}

/** A session opened with raw requests, by a client declaring `capabilities`. */
async function session(capabilities: Record<string, unknown>): Promise<{ id: string; initialize: Answer }> {
  const initialize = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities, clientInfo: { name: 'raw', version: '1' } },
  });
  const id = initialize.sessionId;
  if (!id) throw new Error(`initialize answered ${initialize.status} without a session id`);
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id)).status).toBe(202);
  return { id, initialize };
}

const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});
const okok = { content: [{ type: 'text', text: 'okok' }] };

describe('Streamable HTTP answers: plain JSON when nothing can stream, SSE otherwise', () => {
  it('answers initialize, tools/list and a cli call from a client that cannot be asked as JSON', async () => {
    const { id, initialize } = await session({});
    expect(initialize.type).toBe('application/json');
    expect(initialize.messages[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'factorly' } } });
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, id);
    expect(list.type).toBe('application/json');
    expect(list.messages[0]).toMatchObject({ id: 2, result: { tools: expect.arrayContaining([]) } });
    const repeat = await post(call(3, 'repeat', { word: 'ok', times: 2 }), id);
    expect(repeat).toMatchObject({ status: 200, type: 'application/json' });
    expect(repeat.messages).toEqual([{ jsonrpc: '2.0', id: 3, result: okok }]);
    const ping = await post({ jsonrpc: '2.0', id: 4, method: 'ping' }, id);
    expect(ping).toMatchObject({ type: 'application/json', messages: [{ jsonrpc: '2.0', id: 4, result: {} }] });
  });

  it('streams a call with a progress token, a call of a tool it does not know, and every call of a client that can be asked', async () => {
    const { id } = await session({});
    const withProgress = await post(call(2, 'repeat', { word: 'ok', times: 2 }, { progressToken: 'p-1' }), id);
    expect(withProgress.type).toBe('text/event-stream');
    expect(withProgress.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: okok }]);
    const unknown = await post(call(3, 'no-such-tool', {}), id);
    expect(unknown.type).toBe('text/event-stream');
    expect(unknown.messages[0]).toMatchObject({ id: 3 });

    const asked = await session({ elicitation: {} });
    const repeat = await post(call(2, 'repeat', { word: 'ok', times: 2 }), asked.id);
    expect(repeat.type).toBe('text/event-stream');
    expect(repeat.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: okok }]);
  });

  it('keeps both kinds apart in one session: each answered its own way while the other kind is running', async () => {
    const { id } = await session({});
    const slowStreamed = post(call(2, 'slow', {}, { progressToken: 'p-slow' }), id);
    const slowPlain = post(call(3, 'slow', {}), id);
    // Both slow calls are running (their requests recorded) before the quick ones are sent.
    await eventually(async () => {
      const slow = (await projectEvents(root)).filter(
        (event) => event.type === 'call.requested' && event.data.tool === 'slow' && event.data.sessionId === id,
      );
      expect(slow).toHaveLength(2);
    });
    const quickPlain = await post(call(4, 'repeat', { word: 'ok', times: 2 }), id);
    expect(quickPlain).toMatchObject({ type: 'application/json', messages: [{ jsonrpc: '2.0', id: 4, result: okok }] });
    const quickStreamed = await post(call(5, 'repeat', { word: 'ok', times: 2 }, { progressToken: 'p-5' }), id);
    expect(quickStreamed).toMatchObject({ type: 'text/event-stream', messages: [{ id: 5, result: okok }] });
    const finished = { content: [{ type: 'text', text: 'finished' }] };
    expect(await slowStreamed).toMatchObject({ type: 'text/event-stream', messages: [{ id: 2, result: finished }] });
    expect(await slowPlain).toMatchObject({ type: 'application/json', messages: [{ id: 3, result: finished }] });
    const after = await post(call(6, 'stats', {}), id);
    expect(after).toMatchObject({
      type: 'application/json',
      messages: [{ id: 6, result: { content: [{ type: 'text', text: '{"ok":true,"n":3}' }] } }],
    });
  });
});
