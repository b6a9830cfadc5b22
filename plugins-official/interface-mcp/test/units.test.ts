import { hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from 'factorly';
import { streamsNothing, type QuietView } from '../src/answer-mode.js';
import { asScript } from '../src/code-mode.js';
import { messageFor } from '../src/elicit-channel.js';
import { exposedTools } from '../src/exposure.js';
import { shadowPolicies } from './policies.js';
import { Authenticator } from '../src/http-auth.js';
import { HttpGuard } from '../src/http-guard.js';

const request = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('HttpGuard', () => {
  const guard = new HttpGuard({ host: '127.0.0.1', port: 4100, allowedOrigins: ['https://app.example'] });
  const ok = { host: '127.0.0.1:4100' };

  it('lets through a loopback Host with no Origin, its own origin or an allowed one', () => {
    expect(guard.check(request(ok))).toBeUndefined();
    expect(guard.check(request({ host: 'localhost:4100', origin: 'http://localhost:4100' }))).toBeUndefined();
    expect(guard.check(request({ ...ok, origin: 'https://APP.example' }))).toBeUndefined();
  });

  it('refuses another Host (DNS rebinding) or port, and a foreign Origin, with 403', () => {
    expect(guard.check(request({ host: 'attacker.example:4100' }))).toEqual({
      status: 403,
      message: 'Host "attacker.example:4100" is not allowed',
    });
    expect(guard.check(request({ host: '127.0.0.1:80' }))?.status).toBe(403);
    expect(guard.check(request({ host: ok.host, origin: 'http://127.0.0.1.attacker.example' }))).toEqual({
      status: 403,
      message: 'Origin "http://127.0.0.1.attacker.example" is not allowed',
    });
  });

  it("bound to every address, accepts the machine's own names and --allowed-host, not any Host, still checking Origin", () => {
    const open = new HttpGuard({ host: '0.0.0.0', port: 4100, allowedOrigins: [], allowedHosts: ['mcp.example.test'] });
    expect(open.check(request({ host: `${hostname()}:4100` }))).toBeUndefined();
    expect(open.check(request({ host: 'mcp.example.test:4100' }))).toBeUndefined();
    expect(open.check(request({ host: '192.0.2.77:4100' }))).toEqual({
      status: 403,
      message: 'Host "192.0.2.77:4100" is not allowed',
    });
    expect(open.check(request({ host: `${hostname()}:4100`, origin: 'https://evil.example' }))?.status).toBe(403);
  });
});

describe('Authenticator', () => {
  const named = [
    { name: 'cursor', value: 'c-0d9f7e1a' },
    { name: 'claude-code', value: 'k-55b2c9e3' },
  ];
  const both = new Authenticator(named, 's3cret');

  it('names the agent of a named token, and no agent for --http-token (the session is the agent)', async () => {
    expect(await both.authenticate('Bearer c-0d9f7e1a')).toEqual({ principal: { kind: 'token', agentId: 'cursor' } });
    expect(await both.authenticate('Bearer k-55b2c9e3')).toEqual({
      principal: { kind: 'token', agentId: 'claude-code' },
    });
    expect(await both.authenticate('Bearer s3cret')).toEqual({ principal: { kind: 'http-token' } });
    // A named token wins over --http-token when both are the same value.
    expect(await new Authenticator([{ name: 'ci', value: 's3cret' }], 's3cret').authenticate('Bearer s3cret')).toEqual({
      principal: { kind: 'token', agentId: 'ci' },
    });
  });

  it('refuses a missing, wrong, differently cased or unprefixed token with 401', async () => {
    for (const authorization of [
      undefined,
      'Bearer s3cre',
      'Bearer S3CRET',
      's3cret',
      'Basic s3cret',
      'Bearer s3cret ',
      'Bearer ',
    ]) {
      expect(await both.authenticate(authorization)).toEqual({
        refusal: { status: 401, message: 'missing or wrong bearer token' },
      });
    }
  });

  it('lets every request through when no token is configured', async () => {
    const none = new Authenticator([], undefined);
    expect(none.required).toBe(false);
    expect(await none.authenticate(undefined)).toEqual({});
  });
});

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition =>
  ({
    name,
    type: 'cli',
    description: '',
    hidden: false,
    parameters: [],
    spec: {},
    source: { file: 'f', line: 1 },
    ...extra,
  }) as ToolDefinition;

describe('exposedTools', () => {
  const tools = [
    tool('a'),
    tool('hidden', { hidden: true }),
    tool('gone', { shadow: { deny: true } }),
    tool('gh.delete_repo', { expandedFrom: 'gh', shadow: { deny: ['delete_repo'] } }),
    tool('gh.list', { expandedFrom: 'gh', shadow: { deny: ['delete_repo'] } }),
    tool('factorly.fetch'),
    tool('factorly.shell'),
    tool('factorly.help'),
    tool('factorly.ask'),
    tool('factorly.code', { spec: { localOnly: true } }),
    tool('scripts.local', { spec: { localOnly: true } }),
  ];

  it('shows visible tools minus denied ones (by full or relative name) to local clients', async () => {
    expect(exposedTools(tools, 'local', await shadowPolicies()).map((t) => t.name)).toEqual([
      'a',
      'gh.list',
      'factorly.fetch',
      'factorly.shell',
      'factorly.help',
      'factorly.ask',
      'factorly.code',
      'scripts.local',
    ]);
  });

  it('shows remote clients only the built-ins that act on nothing of this machine, and no local-only tool', async () => {
    expect(exposedTools(tools, 'remote', await shadowPolicies()).map((t) => t.name)).toEqual([
      'a',
      'gh.list',
      'factorly.fetch',
      'factorly.help',
      'factorly.ask',
    ]);
  });
});

describe('code mode and confirmation text', () => {
  it('takes a program body as the body of run(params), and leaves a script declaring run alone', () => {
    expect(asScript('return 1')).toBe('async function run(params) {\nreturn 1\n}');
    const script = 'async function run(p) { return p }';
    expect(asScript(script)).toBe(script);
  });

  it('names the tool and the reason, and cuts a long params preview', () => {
    const message = messageFor({
      callId: 'c',
      tool: 'db.drop',
      params: { sql: 'x'.repeat(2_000) },
      fingerprint: 'f',
      iface: 'mcp',
      reason: 'confirm: every call',
    });
    expect(
      message.startsWith(
        'Tool "db.drop" requires confirmation (confirm: every call). Allow this call?\nParameters:\n{',
      ),
    ).toBe(true);
    expect(message).toMatch(/… \(\d+ more characters\)$/);
    expect(message.length).toBeLessThan(700);
  });
});

describe('streamsNothing (which POSTs are answered as plain JSON)', () => {
  const view = (over: Partial<QuietView> = {}): QuietView => ({
    canElicit: () => false,
    codeMode: false,
    toolType: (name) => ({ echo: 'cli', fetch: 'rest', upstream: 'mcp', script: 'code' })[name],
    ...over,
  });
  const call = (params: unknown) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params });

  it('answers quiet methods, notifications and a cli or rest call with nothing on its stream as JSON', () => {
    for (const method of ['initialize', 'ping', 'tools/list'])
      expect(streamsNothing({ id: 1, method }, view())).toBe(true);
    expect(streamsNothing({ jsonrpc: '2.0', method: 'notifications/initialized' }, view())).toBe(true);
    expect(streamsNothing(call({ name: 'echo', arguments: {} }), view())).toBe(true);
    expect(streamsNothing(call({ name: 'fetch' }), view())).toBe(true);
  });

  it('streams whatever may send on the request: another tool type, an unknown name, a progress token, a task, a client that can be asked, code mode', () => {
    for (const name of ['upstream', 'script', 'not-listed-yet'])
      expect(streamsNothing(call({ name }), view()), name).toBe(false);
    expect(streamsNothing(call({ name: 'echo', _meta: { progressToken: 0 } }), view())).toBe(false);
    expect(streamsNothing(call({ name: 'echo', task: { ttl: 1000 } }), view())).toBe(false);
    expect(streamsNothing(call({ name: 'echo' }), view({ canElicit: () => true }))).toBe(false);
    expect(streamsNothing(call({ name: 'echo' }), view({ codeMode: true }))).toBe(false);
    expect(streamsNothing({ id: 1, method: 'resources/read', params: {} }, view())).toBe(false);
  });

  it('streams (the SDK default) anything malformed, without throwing', () => {
    for (const bad of [null, 'ping', 42, [{ id: 1, method: 'ping' }], { id: 1 }, { id: 1, method: 5 }])
      expect(streamsNothing(bad, view()), JSON.stringify(bad)).toBe(false);
    for (const params of [undefined, null, 'echo', { name: 5 }])
      expect(streamsNothing(call(params), view()), JSON.stringify(params)).toBe(false);
    // A `_meta` that is not an object carries no progress token: nothing can stream.
    expect(streamsNothing(call({ name: 'echo', _meta: null }), view())).toBe(true);
  });
});
