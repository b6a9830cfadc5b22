import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addressProblem } from '@factorly/net-guard';
import { plugin as restPlugin } from '@factorly/plugin-provider-rest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';

const SECRET = 'sk-live-7f3a9c';

interface Seen {
  server: 'a' | 'b';
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];

/**
 * Two loopback servers: two origins. A redirects `/to-b/<status>` to B (keeping the query, as
 * many servers do) and `/to-a/<status>` to itself; B only records what reached it.
 */
let a: Server;
let b: Server;
let A: string;
let B: string;
function server(name: 'a' | 'b'): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ server: name, method: req.method!, url: req.url!, headers: req.headers, body });
      const [, route, status] = req.url!.split('?')[0].split('/');
      const query = req.url!.includes('?') ? `?${req.url!.split('?')[1]}` : '';
      if (route === 'to-b') res.writeHead(Number(status), { location: `${B}/landing${query}` }).end();
      else if (route === 'to-a') res.writeHead(Number(status), { location: `/landing${query}` }).end();
      else res.end(`${name} ${req.method} ${req.url}`);
    });
  });
}
beforeAll(async () => {
  a = server('a');
  b = server('b');
  for (const s of [a, b]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  A = `http://127.0.0.1:${(a.address() as AddressInfo).port}`;
  B = `http://127.0.0.1:${(b.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of [a, b]) await new Promise((resolve) => s.close(resolve));
});

const vault = definePlugin({
  id: 'test-vault',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { backends: reg.tokens.SecretBackends },
      init({ backends }, ctx) {
        backends.add(
          'vault',
          { name: 'vault', readOnly: true, resolve: async (key) => (key === 'K' ? SECRET : undefined) },
          ctx.pluginId,
        );
      },
    });
  },
});

let kernel: Kernel | undefined;
let events: () => Promise<unknown[]>;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
  seen.length = 0;
});

async function start(tools: string): Promise<Kernel> {
  const started = await startTestKernel(`tools:\n${tools.replaceAll('$A', A).replaceAll('$B', B)}`, [
    restPlugin,
    vault,
  ]);
  events = () => eventsOf(started.log);
  kernel = started.kernel;
  return kernel;
}

const call = (tool: string, params: Record<string, string> = {}) =>
  kernel!.pipeline.call({ tool, params, iface: 'mcp' });

/** Everything server B saw, as one string: no form of the secret may be in it. */
function reachedB(): string {
  return JSON.stringify(seen.filter((s) => s.server === 'b'));
}

describe('redirects never carry secrets across origins', () => {
  it('follow_redirects: any drops every header, query parameter and body field holding a secret on a hop to another origin (302 and 307)', async () => {
    await start(`  leak.get:
    type: rest
    base_url: $A
    method: GET
    path: '/to-b/302?api_key={{vault:K}}&page=2'
    headers: {X-Api-Key: "{{vault:K}}", X-Plain: kept}
    auth: {type: bearer, token: "{{vault:K}}"}
    follow_redirects: any
  leak.post:
    type: rest
    base_url: $A
    method: POST
    path: /to-b/307
    headers: {X-Api-Key: "prefix {{vault:K}}"}
    body: '{"token": "{{vault:K}}", "n": 1}'
    follow_redirects: any
`);
    const got = await call('leak.get');
    expect(got).toMatchObject({ status: 'success', output: `b GET /landing?page=2` });
    expect(got.diagnostics).toBe(
      `redirected to ${B}, another origin: sent without header authorization, header x-api-key, query api_key\n`,
    );
    const posted = await call('leak.post');
    expect(posted).toMatchObject({ status: 'success', output: 'b POST /landing' });
    expect(seen.find((s) => s.server === 'b' && s.method === 'POST')).toMatchObject({ body: '{"n":1}' });
    expect(seen.find((s) => s.server === 'b' && s.method === 'GET')!.headers['x-plain']).toBe('kept');
    // The first hop, to the origin the tool names, had everything.
    expect(seen.find((s) => s.server === 'a' && s.method === 'GET')!.headers['x-api-key']).toBe(SECRET);
    for (const form of [SECRET, Buffer.from(SECRET).toString('base64'), encodeURIComponent(SECRET)])
      expect(reachedB()).not.toContain(form);
    expect(JSON.stringify(await events())).not.toContain(SECRET);
  });

  it('by default (same-origin) a redirect to another origin is refused and nothing reaches it', async () => {
    await start(`  keyed: {type: rest, base_url: $A, method: GET, path: /to-b/307, headers: {X-Api-Key: "{{vault:K}}"}}
`);
    const got = await call('keyed');
    expect(got).toMatchObject({ status: 'error', exitCode: 1 });
    expect(got.error).toBe(
      `GET ${A}/to-b/307: HTTP 307 redirect to ${B}/landing, another origin, refused (follow_redirects: same-origin; "any" follows it without the tool's secrets)`,
    );
    expect(seen.filter((s) => s.server === 'b')).toEqual([]);
  });

  it('a redirect within the origin keeps the request as built; none follows no redirect at all', async () => {
    await start(`  same: {type: rest, base_url: $A, method: GET, path: /to-a/302, headers: {X-Api-Key: "{{vault:K}}"}}
  stay: {type: rest, base_url: $A, method: GET, path: /to-a/302, follow_redirects: none}
`);
    expect(await call('same')).toMatchObject({ status: 'success', output: 'a GET /landing' });
    expect(seen.at(-1)!.headers['x-api-key']).toBe(SECRET);
    expect(await call('stay')).toMatchObject({
      status: 'error',
      error: `GET ${A}/to-a/302: HTTP 302 redirect to ${A}/landing not followed (follow_redirects: none)`,
    });
  });

  it('refuses an unknown follow_redirects at load time', async () => {
    await expect(start('  x: {type: rest, base_url: $A, method: GET, follow_redirects: always}\n')).rejects.toThrow(
      'config: tool "x" has unknown follow_redirects "always" (valid: same-origin, any, none) (.factorly/factorly.yaml:2)',
    );
  });
});

describe('agent-steered rest URLs pass the SSRF guard of factorly.fetch', () => {
  it('a templated base_url cannot reach loopback, private or metadata addresses unless shadow.allow_urls lists them', async () => {
    await start(`  any.host: {type: rest, base_url: 'http://{{host}}', method: GET, path: /hello}
  listed.host:
    type: rest
    base_url: 'http://{{host}}'
    method: GET
    path: /hello
    shadow: {allow_urls: ["$A"]}
`);
    const port = new URL(A).port;
    expect((await call('any.host', { host: `127.0.0.1:${port}` })).error).toBe(
      `URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it)`,
    );
    expect((await call('any.host', { host: '169.254.169.254' })).error).toBe(
      'URL blocked by safety guard: cloud metadata endpoint (169.254.169.254)',
    );
    expect((await call('any.host', { host: '10.1.2.3' })).error).toMatch(
      /^URL blocked by safety guard: private network access denied/,
    );
    expect((await call('any.host', { host: `localhost:${port}` })).error).toMatch(
      /^URL blocked by safety guard: localhost access denied/,
    );
    expect(await call('listed.host', { host: `127.0.0.1:${port}` })).toMatchObject({
      status: 'success',
      output: 'a GET /hello',
    });
    expect(seen.map((s) => s.url)).toEqual(['/hello']);
  });

  it('the check runs at DNS lookup too: a name that resolves to loopback is refused', async () => {
    const name = hostname();
    const { address } = await lookup(name);
    expect(addressProblem(address), `${name} resolves to ${address}`).toBeDefined();
    await start(`  any.host: {type: rest, base_url: 'http://{{host}}', method: GET}
`);
    const got = await call('any.host', { host: `${name}:${new URL(A).port}` });
    expect(got.error).toMatch(
      new RegExp(`request failed: URL blocked by safety guard: .*\\(${name} resolves to it\\)`),
    );
    expect(seen).toEqual([]);
  });

  it('a templated path keeps the configured origin, but every redirect hop elsewhere is guarded', async () => {
    await start(`  by.path: {type: rest, base_url: $A, method: GET, path: '/{{where}}/302', follow_redirects: any}
  by.path.listed: {type: rest, base_url: $A, method: GET, path: '/{{where}}/302', follow_redirects: any, shadow: {allow_urls: ["$B"]}}
`);
    expect(await call('by.path', { where: 'to-a' })).toMatchObject({ status: 'success', output: 'a GET /landing' });
    expect((await call('by.path', { where: 'to-b' })).error).toBe(
      `URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it) (redirected to ${B}/landing)`,
    );
    expect(seen.filter((s) => s.server === 'b')).toEqual([]);
    expect(await call('by.path.listed', { where: 'to-b' })).toMatchObject({
      status: 'success',
      output: 'b GET /landing',
    });
  });
});
