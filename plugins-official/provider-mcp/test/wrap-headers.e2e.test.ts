import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';
import { isolatedEnv } from '../../../test/helpers/listening.js';
import { BIN, tempProject } from '../../../test/helpers/project.js';
import { runCliAsync } from './serve-client.js';

/** An MCP server that takes one bearer token, and a tool that echoes the Authorization header it got (the canary). */
async function startGuarded(token: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${token}`) return void response.writeHead(401).end();
    const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
    mcp.registerTool('echo-auth', { description: 'Echoes the Authorization header.' }, async () => ({
      content: [{ type: 'text', text: `you sent ${request.headers.authorization}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

describe('an HTTP upstream behind a header with a secret reference', () => {
  const token = `tok-${randomBytes(12).toString('hex')}`;
  const env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
  let guarded: { server: Server; url: string };
  beforeAll(async () => {
    guarded = await startGuarded(token);
  });
  afterAll(() => new Promise((resolve) => guarded.server.close(resolve)));

  it(
    "wrap --url --header 'Authorization: Bearer {{vault:T}}', and headers: in config, reach it; the token is scrubbed",
    { timeout: 60_000 },
    async () => {
      const root = tempProject({
        '.factorly/factorly.yaml': `tools:\n  api:\n    type: mcp\n    url: ${guarded.url}\n    headers:\n      Authorization: "Bearer {{vault:T}}"\n`,
      });
      expect((await runCliAsync(['vault', 'set', 'T', token], root, '', env)).status).toBe(0);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'wrap', '--url', guarded.url, '--header', 'Authorization: Bearer {{vault:T}}'],
        cwd: root,
        env: isolatedEnv(root, env),
        stderr: 'pipe',
      });
      const client = new Client({ name: 'wrap-headers', version: '1' });
      const [call] = await Promise.all([
        runCliAsync(['call', 'api.echo-auth', '--json'], root, '', env),
        client.connect(transport),
      ]);
      let result: unknown;
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo-auth']);
        result = await client.callTool({ name: 'echo-auth', arguments: {} });
      } finally {
        await client.close();
      }
      expect(JSON.stringify(result)).toMatch(/you sent Bearer \S+/);
      expect(call.status, call.stderr).toBe(0);
      expect(call.stdout).toMatch(/you sent Bearer/);
      const logs = await runCliAsync(['logs', '--json', '-n', '20'], root, '', env);
      expect(logs.stdout).toContain('echo-auth');
      expect(leaksIn(JSON.stringify(result) + call.stdout + call.stderr + logs.stdout, token)).toEqual([]);
      expect(leaksUnder(join(root, '.factorly'), token)).toEqual([]);
    },
  );
});
