import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { loginInBackground } from '../../../test/helpers/auth-login.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';
import { freePort, isolatedEnv, spawnListening, type Listening } from '../../../test/helpers/listening.js';
import { tempProject } from '../../../test/helpers/project.js';
import { runCliAsync, serveClient } from './serve-client.js';

// The MCP SDK's own OAuth-protected example server: its demo authorization server registers clients
// (RFC 7591), requires PKCE S256 and, with --oauth-strict, a `resource` naming http://localhost:PORT/mcp.
// A preload binds both ports to loopback and writes the server's record of each request on stderr.
const require = createRequire(import.meta.url);
const EXAMPLE = require.resolve('@modelcontextprotocol/sdk/examples/server/simpleStreamableHttp.js');
const PRELOAD = fileURLToPath(new URL('./fixtures/oauth-example-loopback.cjs', import.meta.url));

/** The person at the browser: the demo server logs in at once and redirects to factorly's callback. */
async function followDemoLogin(authorizationUrl: string): Promise<void> {
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  const callback = consent.headers.get('location');
  if (!callback) throw new Error(`no redirect from ${authorizationUrl}: ${consent.status} ${await consent.text()}`);
  const landed = await fetch(callback);
  if (!landed.ok) throw new Error(`the callback answered ${landed.status}: ${await landed.text()}`);
}

/** The demo authorization server's authorization URL, as `auth login --no-browser` prints it. */
const AUTHORIZE = /http:\/\/localhost:\d+\/authorize\?\S+/;

let example: Listening;
let mcpUrl: string;
const env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
const open: Client[] = [];

/** The example server on these ports; its authorization server keeps registered clients in memory only. */
const startExample = (mcpPort: number, authPort: number): Promise<Listening> =>
  spawnListening(['--require', PRELOAD, EXAMPLE, '--oauth', '--oauth-strict'], {
    env: { PATH: process.env.PATH ?? '', MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
  });

beforeAll(async () => {
  example = await startExample(await freePort(), await freePort());
  mcpUrl = example.url;
}, 30_000);
afterAll(async () => {
  await example?.stop();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

/** A project with a cli tool and the example server, its login's callback on a port of its own. */
async function project(url = mcpUrl): Promise<string> {
  const yaml = `tools:
  hello:
    type: cli
    command: echo
    args: [hello]
  demo:
    type: mcp
    url: ${url}
    oauth:
      redirect_port: ${await freePort()}
`;
  return tempProject({ '.factorly/factorly.yaml': yaml });
}

const toolNames = async (client: Client): Promise<string[]> =>
  (await client.listTools()).tools.map((tool) => tool.name).filter((name) => !name.startsWith('factorly.'));

/** Bearer tokens the example server was shown (its preload writes each on stderr). */
const tokensSeen = (): string[] => [...new Set([...example.stderr().matchAll(/^bearer: (\S+)$/gm)].map((m) => m[1]!))];

describe('MCP authorization for a remote upstream (the MCP SDK example server, --oauth-strict)', () => {
  it(
    'a login made by `factorly auth login` reaches a running serve: the tools arrive with list_changed',
    { timeout: 60_000 },
    async () => {
      const root = await project();
      const [before, { client, stderr }] = await Promise.all([
        runCliAsync(['auth', 'status', '--json'], root, '', env),
        serveClient(root, { env }),
      ]);
      expect(JSON.parse(before.stdout)).toMatchObject({
        upstreams: [{ name: 'demo', kind: 'upstream', state: 'not_authenticated', url: mcpUrl }],
      });
      open.push(client);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
      );
      expect(await toolNames(client)).toEqual(['hello']);
      expect(stderr()).toContain(
        'upstream MCP server "demo" is left out (needs_login): upstream MCP server "demo" answered 401 Unauthorized: it needs a login (run: factorly auth login demo)',
      );

      const login = await loginInBackground(['demo'], root, isolatedEnv(root, env), AUTHORIZE);
      const asked = new URL(login.url);
      await followDemoLogin(login.url);
      const ended = await login.done;
      expect(ended.status, ended.stderr).toBe(0);
      expect(ended.stdout).toContain('Authenticated with demo: ✓ valid');

      // The authorization server's own record: PKCE with S256 and the resource this server is.
      const record = example.stderr().match(/^authorization server: GET \/authorize\?(\S+)$/gm) ?? [];
      const query = new URLSearchParams(record.at(-1)!.split('?')[1]);
      expect(query.get('code_challenge_method')).toBe('S256');
      expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(query.get('resource')).toBe(mcpUrl);
      expect(query.get('state')).toBe(asked.searchParams.get('state'));
      expect(example.stderr()).toMatch(/^authorization server: POST \/register$/m);

      await changed;
      expect(await toolNames(client)).toEqual(expect.arrayContaining(['hello', 'demo.greet']));
      expect(await client.callTool({ name: 'demo.greet', arguments: { name: 'Ada' } })).toMatchObject({
        content: [{ type: 'text', text: 'Hello, Ada!' }],
      });
      const [status, logs] = await Promise.all(
        [
          ['auth', 'status', '--json'],
          ['logs', '--json', '-n', '50'],
        ].map((args) => runCliAsync(args, root, '', env)),
      );
      expect(JSON.parse(status!.stdout).upstreams[0]).toMatchObject({ state: 'valid', storedAs: 'vault:demo_oauth' });

      // Canary: the tokens the server was shown are nowhere in factorly's log, outputs or files.
      expect(tokensSeen().length).toBeGreaterThan(0);
      for (const token of tokensSeen()) {
        expect(leaksIn(logs!.stdout + status!.stdout + stderr(), token)).toEqual([]);
        expect(leaksIn(ended.stdout + ended.stderr, token)).toEqual([]);
        expect(leaksUnder(join(root, '.factorly'), token)).toEqual([]);
      }
    },
  );

  it(
    'serve asks an agent whose client opens URLs to log in (URL elicitation), then serves the tools',
    { timeout: 60_000 },
    async () => {
      const root = await project();
      const elicited: Record<string, unknown>[] = [];
      const { client } = await serveClient(root, {
        env,
        capabilities: { elicitation: { url: {} } },
        prepare: (agent) =>
          agent.setRequestHandler(ElicitRequestSchema, async (request) => {
            elicited.push(request.params);
            // The person agrees to open the page; the browser then goes there.
            setImmediate(() => void followDemoLogin(String((request.params as { url: string }).url)));
            return { action: 'accept' };
          }),
      });
      open.push(client);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
      );
      await changed;
      expect(elicited).toEqual([
        expect.objectContaining({
          mode: 'url',
          url: expect.stringMatching(/^http:\/\/localhost:\d+\/authorize\?/),
          elicitationId: expect.any(String),
        }),
      ]);
      expect(await toolNames(client)).toEqual(expect.arrayContaining(['hello', 'demo.greet']));
    },
  );

  it(
    'registers again when the authorization server forgot the client it registered, instead of waiting on its error page',
    { timeout: 60_000 },
    async () => {
      const [mcpPort, authPort] = [await freePort(), await freePort()];
      let server = await startExample(mcpPort, authPort);
      try {
        const root = await project(server.url);
        const login = async (): Promise<string> => {
          const started = await loginInBackground(['demo'], root, isolatedEnv(root, env), AUTHORIZE);
          await followDemoLogin(started.url);
          const ended = await started.done;
          expect(ended.status, ended.stderr).toBe(0);
          return new URL(started.url).searchParams.get('client_id')!;
        };
        const first = await login();
        // Restarted, the server has lost every client registered with it; factorly's record still names one.
        await server.stop();
        server = await startExample(mcpPort, authPort);
        const second = await login();
        expect(second).not.toBe(first);
        expect(server.stderr()).toMatch(/^authorization server: POST \/register$/m);
      } finally {
        await server.stop();
      }
    },
  );

  it('wrap --url serves a server that needs a login once `auth login --url` made it', { timeout: 60_000 }, async () => {
    // (That wrap refuses to serve it before this login, saying to run it, is fail-alone.e2e.test.ts's.)
    const root = tempProject();
    const initialize = `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })}\n`;
    const login = await loginInBackground(['--url', mcpUrl], root, isolatedEnv(root, env), AUTHORIZE);
    await followDemoLogin(login.url);
    expect((await login.done).status).toBe(0);
    const served = await runCliAsync(['wrap', '--url', mcpUrl], root, initialize, env);
    expect(JSON.parse(served.stdout.split('\n')[0]!)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'simple-streamable-http-server' } },
    });
  });

  it(
    'refuses a provider and an upstream of one name, and a bad oauth block, naming them',
    { timeout: 30_000 },
    async () => {
      const clash = `oauth_providers:
  demo:
    issuer: http://127.0.0.1:1
    client_id: x
tools:
  demo:
    type: mcp
    url: ${mcpUrl}
`;
      const yaml = `tools:
  odd:
    type: mcp
    url: ${mcpUrl}
    oauth: {redirect_port: 0, colour: blue}
  local:
    type: mcp
    command: node
    oauth: {client_id: x}
`;
      const [run, broken, both] = await Promise.all([
        runCliAsync(['auth', 'status'], tempProject({ '.factorly/factorly.yaml': clash }), '', env),
        runCliAsync(['tools'], tempProject({ '.factorly/factorly.yaml': yaml }), '', env),
        runCliAsync(['auth', 'login', 'demo', '--url', mcpUrl], tempProject(), '', env),
      ]);
      expect(both.status).toBe(2);
      expect(both.stderr).toContain('name a provider or upstream server, or give --url (not both)');
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('"demo" names both an OAuth provider (oauth_providers) and an upstream MCP server');
      expect(broken.status).not.toBe(0);
      expect(broken.stderr).toContain('has "oauth.redirect_port" that is not a port number (1 to 65535)');
      expect(broken.stderr).toContain('has "oauth.colour", which is not one of client_id');
      expect(broken.stderr).toContain('tool "local" has oauth, which only applies to an HTTP server (url)');
    },
  );
});
