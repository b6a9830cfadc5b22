import { hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from 'factorly';
import { asScript } from '../src/code-mode.js';
import { messageFor } from '../src/elicit-channel.js';
import { exposedTools } from '../src/exposure.js';
import { shadowPolicies } from './policies.js';
import { HttpGuard } from '../src/http-guard.js';

const request = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('HttpGuard', () => {
  const guard = new HttpGuard({
    host: '127.0.0.1',
    port: 4100,
    token: 's3cret',
    allowedOrigins: ['https://app.example'],
  });
  const ok = { host: '127.0.0.1:4100', authorization: 'Bearer s3cret' };

  it('lets through the right token from a loopback Host with no Origin, its own origin or an allowed one', () => {
    expect(guard.check(request(ok))).toBeUndefined();
    expect(guard.check(request({ ...ok, host: 'localhost:4100', origin: 'http://localhost:4100' }))).toBeUndefined();
    expect(guard.check(request({ ...ok, origin: 'https://APP.example' }))).toBeUndefined();
  });

  it('refuses a missing, wrong, differently cased or unprefixed token with 401', () => {
    for (const authorization of [
      undefined,
      'Bearer s3cre',
      'Bearer S3CRET',
      's3cret',
      'Basic s3cret',
      'Bearer s3cret ',
    ]) {
      const headers: Record<string, string> = {
        host: ok.host,
        ...(authorization === undefined ? {} : { authorization }),
      };
      expect(guard.check(request(headers))).toEqual({ status: 401, message: 'missing or wrong bearer token' });
    }
  });

  it('refuses another Host (DNS rebinding) or port, and a foreign Origin, with 403 before looking at the token', () => {
    expect(guard.check(request({ ...ok, host: 'attacker.example:4100' }))).toEqual({
      status: 403,
      message: 'Host "attacker.example:4100" is not allowed',
    });
    expect(guard.check(request({ ...ok, host: '127.0.0.1:80' }))?.status).toBe(403);
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
