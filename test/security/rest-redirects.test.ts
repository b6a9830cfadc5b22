import { lookup as lookupAll } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addressProblem, type Resolver } from '@factorly/net-guard';
import { restPlugin } from '@factorly/plugin-provider-rest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';

const SECRET = 'sk-live-7f3a9c';
/** A secret a URL query splits and re-encodes: `&` starts a new parameter, `+` reads as a space. */
const SPLIT_SECRET = 'k3y&admin=1+x';

/** Names the test points at addresses, as a DNS server might (every other name resolves as usual). */
const NAMES: Record<string, string> = { 'meta.test': '169.254.169.254', 'api.internal.test': '127.0.0.1' };
const resolve: Resolver = (hostname, options, callback) =>
  NAMES[hostname] ? callback(null, [{ address: NAMES[hostname], family: 4 }]) : lookupAll(hostname, options, callback);

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
 * many servers do), `/to-b-path/<status>` to B with the query in the path, `/to-a/<status>` to
 * itself and `/go/<status>?to=<url>` to any URL; B only records what reached it.
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
      else if (route === 'to-b-path') res.writeHead(Number(status), { location: `${B}/p/${query.slice(1)}` }).end();
      else if (route === 'go') {
        const to = new URL(req.url!, 'http://x').searchParams.get('to')!;
        res.writeHead(Number(status), { location: to.replaceAll('$B', B) }).end();
      } else if (route === 'to-a') res.writeHead(Number(status), { location: `/landing${query}` }).end();
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
        const values: Record<string, string> = { K: SECRET, Q: SPLIT_SECRET };
        backends.add('vault', { name: 'vault', readOnly: true, resolve: async (key) => values[key] }, ctx.pluginId);
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
  const yaml = tools.replaceAll('$BPORT', new URL(B).port).replaceAll('$A', A).replaceAll('$B', B);
  const started = await startTestKernel(`tools:\n${yaml}`, [restPlugin({ resolve }), vault]);
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
    shadow: {allow_urls: ["$B"]}
  leak.post:
    type: rest
    base_url: $A
    method: POST
    path: /to-b/307
    headers: {X-Api-Key: "prefix {{vault:K}}"}
    body: '{"token": "{{vault:K}}", "n": 1}'
    follow_redirects: any
    shadow: {allow_urls: ["$B"]}
`);
    const got = await call('leak.get');
    // The query held the secret: dropped whole (its other parameters too), not parameter by parameter.
    expect(got).toMatchObject({ status: 'success', output: `b GET /landing` });
    expect(got.diagnostics).toBe(
      `redirected to ${B}, another origin: sent without header authorization, header x-api-key, the query\n`,
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

  it('a query that held a secret is dropped whole on a hop to another origin, however the redirect split or re-encoded it', async () => {
    await start(`  split: {type: rest, base_url: $A, method: GET, path: '/to-b/302?k={{vault:Q}}', follow_redirects: any, shadow: {allow_urls: ["$B"]}}
  kept: {type: rest, base_url: $A, method: GET, path: '/to-b/302?page=2', headers: {X-Api-Key: "{{vault:K}}"}, follow_redirects: any, shadow: {allow_urls: ["$B"]}}
`);
    const got = await call('split');
    expect(got).toMatchObject({ status: 'success', output: 'b GET /landing' });
    expect(got.diagnostics).toBe(`redirected to ${B}, another origin: sent without the query\n`);
    for (const part of ['k3y', 'admin']) expect(reachedB()).not.toContain(part);
    // A query without a secret stays: only the secret header is dropped.
    expect(await call('kept')).toMatchObject({ status: 'success', output: 'b GET /landing?page=2' });
  });

  it('a hop to another origin whose path holds a secret is refused: a path cannot be dropped', async () => {
    await start(`  in.path: {type: rest, base_url: $A, method: GET, path: '/to-b-path/302?k={{vault:K}}', follow_redirects: any, shadow: {allow_urls: ["$B"]}}
`);
    expect((await call('in.path')).error).toBe(
      `GET ${A}/to-b-path/302: HTTP 302 redirect to ${B}, another origin, refused: its path holds one of the tool's secrets`,
    );
    expect(seen.filter((s) => s.server === 'b')).toEqual([]);
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

describe('every redirect hop passes the SSRF guard, whoever chose the first URL', () => {
  /** A tool with a fixed base_url that follows any redirect, to `to` (`$B` is server B), with `allow_urls`. */
  const redirecting = (name: string, allow: string[] = []) =>
    `  ${name}: {type: rest, base_url: $A, method: GET, path: /go/302, follow_redirects: any, timeout: 10s, parameters: [{name: to, in: query}], shadow: {allow_urls: ${JSON.stringify(allow)}}}\n`;
  const via = (tool: string, to: string) => call(tool, { to });

  it('refuses cloud metadata and link-local targets always, even when allow_urls lists them', async () => {
    await start(
      redirecting('fixed') +
        redirecting('listed', ['http://169.254.169.254', 'http://169.254.7.7', 'http://metadata.google.internal']),
    );
    for (const tool of ['fixed', 'listed']) {
      expect((await via(tool, 'http://169.254.169.254/latest/meta-data/')).error).toBe(
        'URL blocked by safety guard: cloud metadata endpoint (169.254.169.254) (redirected to http://169.254.169.254/latest/meta-data/)',
      );
      expect((await via(tool, 'http://169.254.7.7/')).error).toBe(
        'URL blocked by safety guard: link-local address (169.254.7.7) (redirected to http://169.254.7.7/)',
      );
      expect((await via(tool, 'http://metadata.google.internal/')).error).toBe(
        'URL blocked by safety guard: cloud metadata endpoint (metadata.google.internal) (redirected to http://metadata.google.internal/)',
      );
    }
  });

  it('refuses a host name that resolves to a metadata address at DNS lookup, even when allow_urls lists it', async () => {
    const target = 'http://meta.test:$BPORT/latest';
    await start(redirecting('fixed') + redirecting('listed', ['http://meta.test:$BPORT']));
    for (const tool of ['fixed', 'listed']) {
      expect((await via(tool, target.replace('$BPORT', new URL(B).port))).error).toBe(
        `GET ${A}/go/302: request failed: URL blocked by safety guard: cloud metadata endpoint (169.254.169.254) (meta.test resolves to it)`,
      );
    }
    expect(seen.filter((s) => s.server === 'b')).toEqual([]);
  });

  it('keeps the origin of a fixed base_url open, and lets loopback or private targets through only when allow_urls lists them', async () => {
    await start(redirecting('fixed') + redirecting('listed', ['$B', 'http://api.internal.test:$BPORT']));
    const named = `http://api.internal.test:${new URL(B).port}/landing`;
    expect(await via('fixed', `${A}/hello`)).toMatchObject({ status: 'success', output: 'a GET /hello' });
    expect((await via('fixed', '$B/landing')).error).toBe(
      `URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it) (redirected to ${B}/landing)`,
    );
    expect((await via('fixed', named)).error).toBe(
      `GET ${A}/go/302: request failed: URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it) (api.internal.test resolves to it)`,
    );
    expect(seen.filter((s) => s.server === 'b')).toEqual([]);
    expect(await via('listed', '$B/landing')).toMatchObject({ status: 'success', output: 'b GET /landing' });
    expect(await via('listed', named)).toMatchObject({ status: 'success', output: 'b GET /landing' });
  });
});
