import { request as httpRequest } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import {
  announcesConfigChanges,
  asksByElicitation,
  confirmsByElicitation,
  deniesWithoutElicitation,
  text,
} from './scenarios.js';
import { tempProject } from '../../../test/helpers/project.js';
import { SERVE_CONFIG } from './fixture-config.js';
import { eventually, httpClient, projectEvents, startHttpServe, type HttpServe } from './serve-process.js';

const TOKEN = 'tok-3f9a1c2e8b7d';
const running: HttpServe[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(running.splice(0).map((serve) => serve.stop()));
});

async function connectHttp(s: HttpServe, capabilities: ClientCapabilities): Promise<Client> {
  const client = await httpClient(s.url, TOKEN, capabilities);
  clients.push(client);
  return client;
}

async function serve(args: string[] = ['--http-token', TOKEN]): Promise<{ serve: HttpServe; root: string }> {
  const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
  const started = await startHttpServe(root, args);
  running.push(started);
  return { serve: started, root };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const post = (url: string, headers: Record<string, string>): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: initialize,
  });

describe('factorly serve --port (Streamable HTTP)', () => {
  it('binds loopback by default and serves the catalogue with the built-ins that act on nothing local', async () => {
    const { serve: s } = await serve();
    expect(new URL(s.url).hostname).toBe('127.0.0.1');
    const client = await httpClient(s.url, TOKEN);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['repeat', 'stats', 'factorly.fetch']));
      expect(names.filter((name) => name.startsWith('factorly.'))).toEqual([
        'factorly.fetch',
        'factorly.help',
        'factorly.ask',
      ]);
      // factorly.help tells an HTTP client of the tools it is served, and of no other.
      const help = text(await client.callTool({ name: 'factorly.help', arguments: {} }));
      expect(help).toContain('- `factorly` (3): factorly.fetch, factorly.help, factorly.ask');
      expect(help).toContain('**Confirmation**: guarded ask a person before each call');
      expect(await client.callTool({ name: 'repeat', arguments: { word: 'ok', times: 2 } })).toEqual({
        content: [{ type: 'text', text: 'okok' }],
      });
      const shell = await client.callTool({ name: 'factorly.shell', arguments: { command: 'id' } });
      expect(shell).toEqual({
        isError: true,
        content: [{ type: 'text', text: 'tool "factorly.shell" is not available over this interface' }],
      });
    } finally {
      await client.close();
    }
  });

  it('refuses requests without the token or with a wrong one (401), and a foreign Origin or Host (403)', async () => {
    const { serve: s, root } = await serve();
    expect((await post(s.url, {})).status).toBe(401);
    expect((await post(s.url, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await post(s.url, { authorization: TOKEN })).status).toBe(401);
    const foreign = await post(s.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toBe('Origin "https://evil.example" is not allowed\n');
    expect(
      await rawStatus(s.url, { host: `evil.example:${new URL(s.url).port}`, authorization: `Bearer ${TOKEN}` }),
    ).toBe(403);
    const own = await post(s.url, { authorization: `Bearer ${TOKEN}`, origin: new URL(s.url).origin });
    expect(own.status).toBe(200);
    expect(own.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const events = await projectEvents(root);
    expect(events.filter((e) => e.type === 'call.requested')).toEqual([]);
  });

  it('warns loudly when serving without a token', async () => {
    const { serve: s } = await serve([]);
    expect(s.stderr()).toContain(
      'WARNING: HTTP server has no authentication. Use --http-token (or FACTORLY_HTTP_TOKEN), serve.tokens or serve.oauth for production.',
    );
    expect((await post(s.url, {})).status).toBe(200);
  });

  it('answers unknown sessions with 404 and requests other than initialize without a session with 400', async () => {
    const { serve: s } = await serve();
    const auth = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const unknown = await fetch(s.url, { method: 'POST', headers: { ...auth, 'mcp-session-id': 'nope' }, body: list });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Session not found', data: { factorlyCode: 'SESSION_NOT_FOUND' } },
    });
    const sessionless = await fetch(s.url, { method: 'POST', headers: auth, body: list });
    expect(sessionless.status).toBe(400);
    expect(await sessionless.json()).toMatchObject({
      error: { code: -32600, data: { factorlyCode: 'REQUEST_INVALID' } },
    });
    expect((await fetch(s.url, { method: 'POST', headers: auth, body: '{not json' })).status).toBe(400);
    expect((await fetch(new URL('/other', s.url), { headers: auth })).status).toBe(404);
  });

  it("answers protocol errors with the JSON-RPC code and factorly's stable code in error.data", async () => {
    const { serve: s } = await serve();
    const client = await connectHttp(s, {});
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.unreachable('the request was answered without an error'),
        (error: unknown) => error,
      );
    const malformed = await failure(client.request({ method: 'tools/call', params: { name: 5 } }, z.object({})));
    expect(malformed).toBeInstanceOf(McpError);
    expect(malformed).toMatchObject({
      code: -32602,
      data: { factorlyCode: 'PARAMS_INVALID' },
      message: expect.stringContaining('"name" must be a non-empty string, got number 5'),
    });
    const unknownMethod = await failure(client.request({ method: 'factorly/nothing', params: {} }, z.object({})));
    expect(unknownMethod).toMatchObject({
      code: -32601,
      data: { factorlyCode: 'METHOD_NOT_FOUND' },
      message: expect.stringContaining('factorly/nothing'),
    });
  });

  it('on SIGTERM finishes the call in flight, answers it, records it, then exits 0', async () => {
    const { serve: s, root } = await serve();
    const client = await httpClient(s.url, TOKEN);
    const slow = client.callTool({ name: 'slow', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exited = s.stop('SIGTERM');
    expect(await slow).toEqual({ content: [{ type: 'text', text: 'finished' }] });
    expect(await exited).toBe(0);
    const completed = (await projectEvents(root))
      .filter((e) => e.type === 'call.completed')
      .map((e) => e.data as { status: string });
    expect(completed).toEqual([expect.objectContaining({ status: 'success' })]);
  });

  it("asks for confirmation by elicitation on the call's own stream: approve, decline, approve=false", async () => {
    const { serve: s, root } = await serve();
    await confirmsByElicitation(root, (capabilities) => connectHttp(s, capabilities));
  });

  it('puts factorly.ask questions to the agent by elicitation: answered, dismissed, refused when it does not fit', async () => {
    const { serve: s, root } = await serve();
    await asksByElicitation(root, (capabilities) => connectHttp(s, capabilities));
  });

  it('denies a confirmable call and refuses a question from a client without elicitation, saying why', async () => {
    const { serve: s } = await serve();
    await deniesWithoutElicitation((capabilities) => connectHttp(s, capabilities), 'http-test');
  });

  it('sends tools/list_changed to HTTP sessions when the config changes on disk', async () => {
    const { serve: s, root } = await serve();
    await announcesConfigChanges(root, (capabilities) => connectHttp(s, capabilities));
  });

  it('closes a session left idle (no request, no open stream) and records it; the client then gets 404', async () => {
    const { serve: s, root } = await serve(['--http-token', TOKEN, '--session-idle', '1s']);
    const opened = await post(s.url, { authorization: `Bearer ${TOKEN}` });
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'mcp-session-id': sessionId,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const initialized = await fetch(s.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(initialized.status).toBe(202);
    const closed = await eventually(async () => {
      const events = await projectEvents(root);
      const found = events.find((e) => e.type === 'session.closed');
      expect(found).toBeDefined();
      return found!.data as { sessionId: string };
    });
    expect(closed.sessionId).toBe(sessionId);
    const after = await fetch(s.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('refuses a --session-idle that is not a duration', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const failed = await startHttpServe(root, ['--session-idle', 'soon']).catch((error: Error) => error);
    expect(String(failed)).toContain(
      '--session-idle: expected a duration such as 90s, 30m or 2h (or 0 for never), got "soon"',
    );
  });

  it('names the problem when the port is taken', async () => {
    const { serve: s } = await serve();
    const port = new URL(s.url).port;
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const second = await startHttpServe(root, ['--port', port]).catch((error: Error) => error);
    expect(String(second)).toContain(`cannot serve HTTP on 127.0.0.1:${port}: the port is already in use`);
  });
});

/** A POST with headers fetch will not send as given (Host). */
function rawStatus(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode);
      },
    );
    request.on('error', reject);
    request.end(initialize);
  });
}
