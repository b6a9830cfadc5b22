import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempProject } from '../../../test/helpers/project.js';
import { refusingUrl, runCliAsync, serveClient, unauthorizedServer, upstreamFixture } from './serve-client.js';

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

let locked: Awaited<ReturnType<typeof unauthorizedServer>>;
beforeAll(async () => {
  locked = await unauthorizedServer();
});
afterAll(() => locked.close());

const HELLO = `  hello:
    type: cli
    description: Say hello.
    command: echo
    args: [hello]
`;

/** A cli tool beside one upstream of each broken kind, and one that lists bad names among a good one. */
async function brokenConfig(): Promise<string> {
  return `tools:
${HELLO}  locked:
    type: mcp
    url: ${locked.url}
  refused:
    type: mcp
    url: ${await refusingUrl()}
  hangs:
    type: mcp
    timeout: 1s
    ${upstreamFixture('hangs')}
  dies:
    type: mcp
    ${upstreamFixture('dies-at-list')}
  named:
    type: mcp
    ${upstreamFixture('bad-names')}
`;
}

describe('an upstream MCP server that fails, fails alone', () => {
  it('serve starts: the cli tool and the good upstream tool are listed and callable', { timeout: 60_000 }, async () => {
    const { client } = await serveClient(tempProject({ '.factorly/factorly.yaml': await brokenConfig() }));
    open.push(client);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.filter((name) => !name.startsWith('factorly.')).sort()).toEqual(['hello', 'named.ok']);
    expect(await client.callTool({ name: 'hello', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'hello\n' }],
    });
    expect(await client.callTool({ name: 'named.ok', arguments: {} })).toMatchObject({
      content: [{ type: 'text', text: 'ok ran' }],
    });
  });

  it('tools --json shows each source and its state; stderr names each one, escaped', { timeout: 60_000 }, async () => {
    const run = await runCliAsync(
      ['tools', '--json'],
      tempProject({ '.factorly/factorly.yaml': await brokenConfig() }),
    );
    expect(run.status).toBe(0);
    const { tools, sources } = JSON.parse(run.stdout) as {
      tools: { name: string }[];
      sources: { name: string; state: string; reason?: string; resourceMetadata?: string }[];
    };
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['hello', 'named.ok']));
    const byName = Object.fromEntries(sources.map((source) => [source.name, source]));
    expect(byName.locked).toMatchObject({ state: 'needs_login', resourceMetadata: locked.metadata });
    expect(byName.locked!.reason).toContain('401 Unauthorized: it needs a login');
    expect(byName.refused).toMatchObject({ state: 'failing', reason: expect.stringContaining('could not connect') });
    expect(byName.hangs).toMatchObject({ state: 'failing', reason: expect.stringMatching(/timed out/i) });
    expect(byName.dies).toMatchObject({ state: 'failing' });
    expect(byName.named).toEqual({ name: 'named', type: 'mcp', state: 'connected' });
    for (const name of ['locked', 'refused', 'hangs', 'dies'])
      expect(run.stderr).toMatch(new RegExp(`^factorly: upstream MCP server "${name}" is left out \\(`, 'm'));
    expect(run.stderr).toContain(
      'warning: tool source "named" lists a tool named "named.../x", which holds a path separator ("/" or "\\"); it is left out',
    );
    expect(run.stderr).toContain('"named.rtl\\u202ename", which holds an invisible format character (U+202E)');
    // The dying server's stderr (a screen clear, a title rewrite, a bidirectional override) is shown, escaped.
    expect(run.stderr).toContain('\\x1b[2J\\x1b]0;owned\\x07 \\u202egnp.exe');
    expect(run.stderr).not.toMatch(/[\x1b\x07\u202e]/);
  });

  it('tools (text) lists the states under the tools', { timeout: 60_000 }, async () => {
    const run = await runCliAsync(['tools'], tempProject({ '.factorly/factorly.yaml': await brokenConfig() }));
    expect(run.stdout).toMatch(/^SOURCE +TYPE +STATE +REASON$/m);
    expect(run.stdout).toMatch(/^locked +mcp +needs_login +upstream MCP server "locked" answered 401/m);
    expect(run.stdout).toMatch(/^named +mcp +connected$/m);
  });

  it(
    'a server that recovers while serving brings its tools, announced with list_changed',
    { timeout: 60_000 },
    async () => {
      const root = tempProject();
      const gate = join(root, 'ready');
      writeFileSync(
        join(root, 'factorly.yaml'),
        `tools:\n${HELLO}  ev:\n    type: mcp\n    ${upstreamFixture('gate', gate)}\n`,
      );
      const { client } = await serveClient(root);
      open.push(client);
      const changed = new Promise<void>((resolve) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
      );
      const before = (await client.listTools()).tools.map((tool) => tool.name);
      expect(before).toContain('hello');
      expect(before.some((name) => name.startsWith('ev.'))).toBe(false);
      expect(existsSync(gate)).toBe(false);
      writeFileSync(gate, 'go');
      await changed;
      const after = (await client.listTools()).tools.map((tool) => tool.name);
      expect(after).toEqual(expect.arrayContaining(['hello', 'ev.echo']));
      expect(await client.callTool({ name: 'ev.echo', arguments: { message: 'back' } })).toMatchObject({
        content: [{ type: 'text', text: 'Echo: back' }],
      });
    },
  );

  it(
    'wrap --url of a server that needs a login says so and exits 1, answering no initialize',
    { timeout: 60_000 },
    async () => {
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      const run = await runCliAsync(['wrap', '--url', locked.url], tempProject(), `${initialize}\n`);
      expect(run).toMatchObject({ status: 1, stdout: '' });
      expect(run.stderr).toContain(
        `wrap serves nothing: the MCP server at ${locked.url} answered 401 Unauthorized: it needs a login (run: factorly auth login --url ${locked.url})`,
      );
    },
  );
});
