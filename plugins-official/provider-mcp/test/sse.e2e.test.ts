import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, tempProject } from '../../../test/helpers/project.js';
import { isolatedEnv, spawnListening, type Listening } from '../../../test/helpers/listening.js';
import { refusingUrl, runCliAsync, serveClient, unauthorizedServer } from './serve-client.js';

// The SDK's own legacy HTTP+SSE server (protocol 2024-11-05: GET /mcp opens the event stream,
// POST /messages carries requests; a POST to /mcp is a 404), moved off its hard-coded port 3000
// to a free loopback one by a preload.
const require = createRequire(import.meta.url);
const SSE_SERVER = require.resolve('@modelcontextprotocol/sdk/examples/server/simpleSseServer.js');
const LOOPBACK_PORT = fileURLToPath(new URL('./fixtures/loopback-port.cjs', import.meta.url));
const TOOL = 'start-notification-stream';
const CALL = { name: TOOL, arguments: { interval: 1, count: 1 } };
const DONE = 'Completed sending 1 notifications every 1ms';

let legacy: Listening;
let locked: Awaited<ReturnType<typeof unauthorizedServer>>;
beforeAll(async () => {
  [legacy, locked] = await Promise.all([
    spawnListening(['--require', LOOPBACK_PORT, SSE_SERVER]),
    unauthorizedServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([legacy.stop(), locked.close()]);
});

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function wrapClient(args: string[]): Promise<Client> {
  const root = tempProject();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'wrap', ...args],
    cwd: root,
    env: isolatedEnv(root),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sse-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  open.push(client);
  return client;
}

const entry = (url: string, transport?: string): string =>
  `  legacy:\n    type: mcp\n    url: ${url}\n${transport ? `    transport: ${transport}\n` : ''}`;

describe('a legacy HTTP+SSE upstream', () => {
  for (const [how, transport] of [
    ['transport: sse', 'sse'],
    ['no transport (Streamable HTTP answers 404, so SSE)', undefined],
  ] as const)
    it(`serve lists and calls its tools with ${how}`, { timeout: 60_000 }, async () => {
      const { client } = await serveClient(
        tempProject({ '.factorly/factorly.yaml': `tools:\n${entry(legacy.url, transport)}` }),
      );
      open.push(client);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain(`legacy.${TOOL}`);
      expect(await client.callTool({ ...CALL, name: `legacy.${TOOL}` })).toMatchObject({
        content: [{ type: 'text', text: DONE }],
      });
    });

  it(
    'factorly call on a detected SSE server answers and exits (the refused Streamable HTTP try leaves nothing open)',
    { timeout: 60_000 },
    async () => {
      const root = tempProject({ '.factorly/factorly.yaml': `tools:\n${entry(legacy.url)}` });
      const args = ['call', `legacy.${TOOL}`, '--interval', '1', '--count', '1'];
      const run = await runCliAsync(args, root);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(DONE);
    },
  );

  for (const flags of [['--transport', 'sse'], []])
    it(`wrap --url ${flags.join(' ')} serves it as itself`, { timeout: 60_000 }, async () => {
      const client = await wrapClient(['--url', legacy.url, ...flags]);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([TOOL]);
      expect(client.getServerVersion()).toMatchObject({ name: 'simple-sse-server' });
      expect(await client.callTool(CALL)).toMatchObject({ content: [{ type: 'text', text: DONE }] });
    });

  it(
    'has the source states: a 401 needs a login (never a fallback), a refused port and transport: http fail',
    {
      timeout: 60_000,
    },
    async () => {
      const yaml = `tools:\n${entry(locked.url, 'sse').replace('legacy', 'sse_locked')}${entry(locked.url).replace('legacy', 'auto_locked')}${entry(await refusingUrl(), 'sse').replace('legacy', 'refused')}${entry(legacy.url, 'http').replace('legacy', 'strict')}${entry(legacy.url, 'sse')}`;
      const run = await runCliAsync(['tools', '--json'], tempProject({ '.factorly/factorly.yaml': yaml }));
      expect(run.status).toBe(0);
      const { sources } = JSON.parse(run.stdout) as { sources: { name: string; state: string; reason?: string }[] };
      const byName = Object.fromEntries(sources.map((source) => [source.name, source]));
      for (const name of ['sse_locked', 'auto_locked'])
        expect(byName[name], name).toMatchObject({ state: 'needs_login', resourceMetadata: locked.metadata });
      expect(byName.refused).toMatchObject({ state: 'failing', reason: expect.stringContaining('could not connect') });
      expect(byName.strict).toMatchObject({ state: 'failing', reason: expect.stringContaining('answered HTTP 404') });
      expect(byName.legacy).toEqual({ name: 'legacy', type: 'mcp', state: 'connected' });
    },
  );

  it('refuses an unknown transport, or one on a stdio server, naming the entry', { timeout: 60_000 }, async () => {
    const yaml = `tools:\n${entry(legacy.url, 'websocket')}  local:\n    type: mcp\n    command: node\n    transport: sse\n`;
    const run = await runCliAsync(['tools'], tempProject({ '.factorly/factorly.yaml': yaml }));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('tool "legacy" has transport "websocket", which is not "http" or "sse"');
    expect(run.stderr).toContain('tool "local" has transport, which only applies to an HTTP server (url)');
  });
});
