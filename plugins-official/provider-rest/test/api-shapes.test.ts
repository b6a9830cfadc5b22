import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as restPlugin } from '../src/plugin.js';

/** What real APIs ask of a request and answer with: names agents cannot use, nested forms, errors inside a 200. */
const seen: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/slack/chat.postMessage') res.end('{"ok":false,"error":"channel_not_found"}');
      else if (req.url === '/slack/auth.test') res.end('{"ok":true,"user":"bot"}');
      else if (req.url === '/graphql')
        res.end('{"data":null,"errors":[{"message":"Entity not found: Issue"},{"message":"second"}]}');
      else res.end('{"errors":[],"data":{"ok":true}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
  seen.length = 0;
});
async function start(tools: string): Promise<Kernel> {
  kernel = (await startTestKernel(`tools:\n${tools.replaceAll('BASE', base)}`, [restPlugin])).kernel;
  return kernel;
}

describe('rest tools and the shapes of real APIs', () => {
  it('sends a param under its api_name in the query, a header and the body', async () => {
    await start(`  incidents:
    type: rest
    base_url: BASE
    method: POST
    path: /incidents
    parameters:
      - {name: statuses, type: json, in: query, api_name: "statuses[]"}
      - {name: from, in: header, api_name: From}
      - {name: service_id, in: body, api_name: service}
`);
    const outcome = await kernel!.pipeline.call({
      tool: 'incidents',
      params: { statuses: ['triggered', 'acknowledged'], from: 'ada@example.com', service_id: 'P1' },
      iface: 'cli',
    });
    expect(outcome.status).toBe('success');
    expect(seen[0].url).toBe('/incidents?statuses%5B%5D=triggered&statuses%5B%5D=acknowledged');
    expect(seen[0].headers.from).toBe('ada@example.com');
    expect(JSON.parse(seen[0].body)).toEqual({ service: 'P1' });
  });

  it('spells mappings and lists in a form body with brackets', async () => {
    await start(`  customers.create:
    type: rest
    base_url: BASE
    method: POST
    path: /v1/customers
    body_type: form
    parameters: [{name: email}, {name: metadata, type: json}, {name: expand, type: json}]
`);
    await kernel!.pipeline.call({
      tool: 'customers.create',
      params: { email: 'a@b.test', metadata: { order: 7, note: 'x y' }, expand: ['sources'] },
      iface: 'cli',
    });
    expect(decodeURIComponent(seen[0].body)).toBe(
      'email=a@b.test&metadata[order]=7&metadata[note]=x+y&expand[0]=sources',
    );
  });

  it('fails a 200 whose error_field holds an error (Slack, GraphQL), and passes one whose field is empty', async () => {
    await start(`  slack.post:
    type: rest
    base_url: BASE/slack
    method: POST
    path: /chat.postMessage
    error_field: error
  slack.whoami:
    type: rest
    base_url: BASE/slack
    method: POST
    path: /auth.test
    error_field: error
  linear.issue:
    type: rest
    base_url: BASE
    method: POST
    path: /graphql
    error_field: errors
  linear.ok:
    type: rest
    base_url: BASE
    method: POST
    path: /other
    error_field: errors
`);
    expect(await kernel!.pipeline.call({ tool: 'slack.post', params: {}, iface: 'cli' })).toMatchObject({
      status: 'error',
      exitCode: 1,
      error: 'HTTP 200: channel_not_found',
      output: '{"ok":false,"error":"channel_not_found"}',
    });
    expect(await kernel!.pipeline.call({ tool: 'slack.whoami', params: {}, iface: 'cli' })).toMatchObject({
      status: 'success',
    });
    expect(await kernel!.pipeline.call({ tool: 'linear.issue', params: {}, iface: 'cli' })).toMatchObject({
      status: 'error',
      error: 'HTTP 200: Entity not found: Issue; second',
    });
    expect(await kernel!.pipeline.call({ tool: 'linear.ok', params: {}, iface: 'cli' })).toMatchObject({
      status: 'success',
    });
  });

  it('refuses an error_field that names no field, and an empty api_name', async () => {
    await expect(
      start(`  bad:
    type: rest
    base_url: BASE
    method: GET
    error_field: ""
    parameters: [{name: a, api_name: ""}]
`),
    ).rejects.toThrow(
      /parameter "a": api_name must be a non-empty string[\s\S]*has "error_field" that is not the name of a field/,
    );
  });
});
