import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { definePlugin } from 'factorly';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as restPlugin } from '../src/plugin.js';
import { freePort } from '../../../test/helpers/listening.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url?.startsWith('/status/')) {
        res.writeHead(Number(req.url.split('/')[2]), { 'content-type': 'application/json' });
        res.end('{"message":"no such thing"}');
      } else if (req.url?.startsWith('/slow')) setTimeout(() => res.end('late'), 5_000).unref();
      else res.end(`ok ${req.method} ${req.url}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const vault = definePlugin({
  id: 'test-vault',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { backends: reg.tokens.SecretBackends },
      init({ backends }, ctx) {
        const values: Record<string, string> = { API_TOKEN: 't0ken', BASIC: 'ada:pw' };
        backends.add('vault', { name: 'vault', readOnly: true, resolve: async (key) => values[key] }, ctx.pluginId);
      },
    });
  },
});

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
  seen.length = 0;
});

async function start(tools: string) {
  const started = await startTestKernel(`tools:\n${tools.replaceAll('BASE', base)}`, [restPlugin, vault]);
  kernel = started.kernel;
  return started;
}

describe('rest provider', () => {
  it('routes params to path (escaped), query, header and JSON body with typed values', async () => {
    await start(`  items.update:
    type: rest
    base_url: BASE/api
    method: PATCH
    path: /items/{{id}}
    headers: {X-Static: fixed}
    parameters:
      - {name: id, required: true}
      - {name: dry_run, type: boolean, in: query}
      - {name: X-Trace, in: header}
      - {name: count, type: integer}
      - {name: tags, type: json}
`);
    const outcome = await kernel!.pipeline.call({
      tool: 'items.update',
      params: { id: 'a b/c', dry_run: 'true', 'X-Trace': 'tr-1', count: '3', tags: '["x",{"y":1}]' },
      iface: 'cli',
    });
    expect(outcome).toMatchObject({
      status: 'success',
      exitCode: 0,
      output: 'ok PATCH /api/items/a%20b%2Fc?dry_run=true',
    });
    const [request] = seen;
    expect(request.headers).toMatchObject({
      'x-static': 'fixed',
      'x-trace': 'tr-1',
      'content-type': 'application/json',
    });
    expect(JSON.parse(request.body)).toEqual({ count: 3, tags: ['x', { y: 1 }] });
  });

  it('sends other params of a GET as query, skipping empty values, and repeats list values', async () => {
    await start(`  search:
    type: rest
    base_url: BASE
    method: get
    path: /search
    parameters: [{name: q}, {name: empty}, {name: ids, type: json}]
`);
    const outcome = await kernel!.pipeline.call({
      tool: 'search',
      params: { q: 'a&b', empty: '', ids: [1, 2] },
      iface: 'cli',
    });
    expect(outcome.output).toBe('ok GET /search?q=a%26b&ids=1&ids=2');
    expect(seen[0].body).toBe('');
  });

  it('renders a body template with JSON-escaped strings and raw numbers, and form bodies', async () => {
    await start(`  note:
    type: rest
    base_url: BASE
    method: POST
    path: /notes
    body: '{"text": "{{text}}", "n": {{n}}, "kind": "{{kind|memo}}"}'
    parameters: [{name: text}, {name: n, type: number}, {name: kind}]
  form:
    type: rest
    base_url: BASE
    method: POST
    body_type: form
    parameters: [{name: a}, {name: b}]
`);
    await kernel!.pipeline.call({ tool: 'note', params: { text: 'say "hi"\n', n: 2.5 }, iface: 'cli' });
    expect(JSON.parse(seen[0].body)).toEqual({ text: 'say "hi"\n', n: 2.5, kind: 'memo' });
    await kernel!.pipeline.call({ tool: 'form', params: { a: 'x y', b: '&' }, iface: 'cli' });
    expect(seen[1]).toMatchObject({
      body: 'a=x+y&b=%26',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  });

  it('sends bearer, basic and header auth with values from the secret backends, never logged', async () => {
    await start(`  bearer: {type: rest, base_url: BASE, method: GET, auth: {type: bearer, token: "{{vault:API_TOKEN}}"}}
  basic: {type: rest, base_url: BASE, method: GET, auth: {type: basic, token: "{{vault:BASIC}}"}}
  header: {type: rest, base_url: BASE, method: GET, auth: {type: header, header: X-Api-Key, value: "{{vault:API_TOKEN}}"}}
`);
    for (const tool of ['bearer', 'basic', 'header'])
      expect((await kernel!.pipeline.call({ tool, params: {}, iface: 'cli' })).status).toBe('success');
    expect(seen.map((s) => s.headers.authorization ?? s.headers['x-api-key'])).toEqual([
      'Bearer t0ken',
      `Basic ${Buffer.from('ada:pw').toString('base64')}`,
      't0ken',
    ]);
  });

  it('does not resolve a secret reference a caller passes in a param', async () => {
    const started = await start(`  echo: {type: rest, base_url: BASE, method: GET, path: '/e/{{v}}'}
`);
    await kernel!.pipeline.call({ tool: 'echo', params: { v: '{{vault:API_TOKEN}}' }, iface: 'mcp' });
    expect(seen[0].url).toBe('/e/%7B%7Bvault%3AAPI_TOKEN%7D%7D');
    expect(JSON.stringify(await eventsOf(started.log))).not.toContain('t0ken');
  });

  it('turns 4xx and 5xx into errors that keep the body', async () => {
    await start(`  status: {type: rest, base_url: BASE, method: GET, path: '/status/{{code}}'}
`);
    for (const [code, text] of [
      ['404', 'Not Found'],
      ['503', 'Service Unavailable'],
    ]) {
      const outcome = await kernel!.pipeline.call({ tool: 'status', params: { code }, iface: 'cli' });
      expect(outcome).toMatchObject({
        status: 'error',
        exitCode: 1,
        error: `HTTP ${code} ${text}`,
        output: '{"message":"no such thing"}',
      });
    }
  });

  it('stops at the tool timeout with exit 124, and reports a refused connection', async () => {
    const port = await freePort();
    await start(`  slow: {type: rest, base_url: BASE, method: GET, path: /slow, timeout: 300ms}
  closed: {type: rest, base_url: "http://127.0.0.1:${port}", method: GET}
`);
    const slow = await kernel!.pipeline.call({ tool: 'slow', params: {}, iface: 'cli' });
    expect(slow).toMatchObject({
      status: 'timeout',
      exitCode: 124,
      error: `GET ${base}/slow: request timed out after 300ms`,
    });
    const closed = await kernel!.pipeline.call({ tool: 'closed', params: {}, iface: 'cli' });
    expect(closed).toMatchObject({
      status: 'error',
      exitCode: 1,
      error: `GET http://127.0.0.1:${port}/: request failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('infers required params from templates and reports config mistakes with their line', async () => {
    await start(`  infer: {type: rest, base_url: BASE, method: GET, path: '/u/{{user}}'}
`);
    const missing = await kernel!.pipeline.call({ tool: 'infer', params: {}, iface: 'mcp' });
    expect(missing.error).toBe('parameter validation failed for "infer": required parameter "user" missing');
    await kernel!.stop();
    kernel = undefined;
    await expect(
      startTestKernel(
        `tools:
  bad:
    type: rest
    method: FETCH
    body_type: xml
    auth: {type: bearer}
    parameters: [{name: a, in: cookie}]
`,
        [restPlugin],
      ),
    ).rejects.toThrow(
      [
        'config: tool "bad" parameter "a" has unknown "in" "cookie" (valid: query, path, header, body) (.factorly/factorly.yaml:7)',
        'config: tool "bad" is a rest tool but has no base_url (.factorly/factorly.yaml:2)',
        'config: tool "bad" has unknown method "FETCH" (valid: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS) (.factorly/factorly.yaml:2)',
        'config: tool "bad" has unknown body_type "xml" (valid: json, form, raw) (.factorly/factorly.yaml:2)',
        'config: tool "bad" has auth type bearer without a string "token" (.factorly/factorly.yaml:2)',
      ].join('\n'),
    );
  });
});
