import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Recorded } from 'factorly';
import { eventually, startTestKernel, type TestKernel } from 'factorly/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/project.js';
import { serveInProcess, type InProcessServe } from './serve-in-process.js';

// The tokens reach factorly as secret references; their values never appear in the config or the log.
const TOKENS = { AGENTS_TEST_CURSOR: 'cur-7f3a9c1e5b', AGENTS_TEST_CLAUDE: 'cla-2d8e4b6a0f' };
const SHARED = 'shared-5c1d9e';

const config = (cursorTools: string) => `serve:
  tokens:
    - {name: cursor, token: "{{env:AGENTS_TEST_CURSOR}}", tools: [${cursorTools}]}
    - {name: claude-code, token: "{{env:AGENTS_TEST_CLAUDE}}", rules: {deny: ["admin.*"], rate_limit: 3/min}}
shadow:
  agents:
    "*": {deny: [write.secret]}
tools:
  read.docs: {type: cli, command: echo, args: [docs]}
  write.file: {type: cli, command: echo, args: [written]}
  write.secret: {type: cli, command: echo, args: [secret]}
  admin.reset: {type: cli, command: echo, args: [reset]}
`;

let started: TestKernel;
let url: string;
let served: InProcessServe;
const clients: Client[] = [];

async function connect(token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(token: string, message: object, session?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(message),
  });
}

const text = (result: Awaited<ReturnType<Client['callTool']>>): string =>
  (result.content as { text: string }[]).map((block) => block.text).join('');

beforeAll(async () => {
  Object.assign(process.env, TOKENS);
  // The project folder outlives each test (the suite shares one server); stop() removes it.
  started = await startTestKernel(config('"read.*"'), [], {
    official: ['provider-cli', 'vault', 'shadow', 'interface-mcp'],
    log: 'project',
  });
  served = await serveInProcess(started, { token: SHARED });
  url = served.url;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await served?.stop();
  await started.stop();
  for (const key of Object.keys(TOKENS)) delete process.env[key];
});

describe('named tokens: agents as principals over one serve --port', () => {
  it('shows each agent only what its rules allow, and lets it call only that', async () => {
    const cursor = await connect(TOKENS.AGENTS_TEST_CURSOR, 'Cursor');
    const claude = await connect(TOKENS.AGENTS_TEST_CLAUDE, 'claude-code-cli');
    const shared = await connect(SHARED, 'someone');
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(await names(cursor)).toEqual(['read.docs']);
    expect(await names(claude)).toEqual(['read.docs', 'write.file']);
    // The unnamed --http-token names no agent: its session is bound by "*" alone.
    expect(await names(shared)).toEqual(['admin.reset', 'read.docs', 'write.file']);

    expect(text(await cursor.callTool({ name: 'read.docs', arguments: {} }))).toBe('docs\n');
    const refused = await cursor.callTool({ name: 'write.file', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('tool "write.file" is not allowed for agent "cursor" (serve.tokens[cursor].tools)');
    expect(text(await claude.callTool({ name: 'write.file', arguments: {} }))).toBe('written\n');
    expect(text(await claude.callTool({ name: 'admin.reset', arguments: {} }))).toContain(
      'tool "admin.reset" is denied for agent "claude-code" (serve.tokens[claude-code].rules.deny)',
    );
    expect(text(await claude.callTool({ name: 'write.secret', arguments: {} }))).toContain(
      'tool "write.secret" is denied for agent "claude-code" (shadow.agents.*.deny)',
    );
    // claude-code may make 3 calls a minute, whichever tools (and whichever of its sessions); refused ones do not count.
    const again = await connect(TOKENS.AGENTS_TEST_CLAUDE, 'claude-code-cli');
    expect(text(await again.callTool({ name: 'read.docs', arguments: {} }))).toBe('docs\n');
    expect(text(await again.callTool({ name: 'read.docs', arguments: {} }))).toBe('docs\n');
    expect(text(await again.callTool({ name: 'read.docs', arguments: {} }))).toMatch(
      /^.*agent "claude-code" rate limited: 3\/min exceeded \(serve\.tokens\[claude-code\]\.rules\.rate_limit; resets in /,
    );
  });

  it('records the agent by name, its client as a label, and never a token', async () => {
    const events = await started.events();
    const opened = events.filter((event): event is Recorded<'session.opened'> => event.type === 'session.opened');
    expect(opened.map(({ data }) => [data.agentId, data.principal?.kind, data.client?.name])).toEqual(
      expect.arrayContaining([
        ['cursor', 'token', 'Cursor'],
        ['claude-code', 'token', 'claude-code-cli'],
      ]),
    );
    const sharedSession = opened.find(({ data }) => data.principal?.kind === 'http-token')!;
    expect(sharedSession.data.agentId).toBe(sharedSession.data.sessionId);
    const calls = events.filter((event): event is Recorded<'call.requested'> => event.type === 'call.requested');
    expect(new Set(calls.map(({ data }) => data.agentId))).toEqual(new Set(['cursor', 'claude-code']));
    const log = JSON.stringify(events);
    for (const secret of [...Object.values(TOKENS), SHARED]) expect(log).not.toContain(secret);
  });

  it('refuses a request on a session that another token opened (403)', async () => {
    const init = await post(TOKENS.AGENTS_TEST_CURSOR, INITIALIZE);
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const hijack = await post(TOKENS.AGENTS_TEST_CLAUDE, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(hijack.status).toBe(403);
    expect(await hijack.text()).toBe('this session belongs to another agent\n');
  });

  it("lists one agent's calls by name (logs --agent) and re-derives every decision under the rules recorded then", () => {
    const { root } = started;
    const listed = runCli(['logs', '--agent', 'cursor', '--json'], root);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; agent: string; status: string });
    expect(rows.map((row) => [row.tool, row.agent, row.status]).sort()).toEqual([
      ['read.docs', 'cursor', 'success'],
      ['write.file', 'cursor', 'blocked'],
    ]);
    // Widen cursor's tools: the recorded decisions still re-derive under the block in force then,
    // and today's config says which would now go otherwise.
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), config('"read.*", "write.*"'));
    const check = runCli(['logs', 'replay', '--check', '--json'], root);
    expect(check.stderr).toBe('');
    expect(JSON.parse(check.stdout)).toMatchObject({ mismatches: [], skipped: [] });
    const current = runCli(['logs', 'replay', '--check', '--with-current-config', '--json'], root);
    const changed = (JSON.parse(current.stdout) as { mismatches: { tool: string }[] }).mismatches;
    expect(changed.map((mismatch) => mismatch.tool)).toEqual(['write.file']);
  });

  it('takes a token out while serving: it is refused from the next request on', async () => {
    const withoutClaude = config('"read.*"').replace(/^ {4}- \{name: claude-code.*\n/m, '');
    writeFileSync(join(started.root, '.factorly', 'factorly.yaml'), withoutClaude);
    await eventually(async () => expect((await post(TOKENS.AGENTS_TEST_CLAUDE, INITIALIZE)).status).toBe(401));
    expect((await post(TOKENS.AGENTS_TEST_CURSOR, INITIALIZE)).status).toBe(200);
  });
});
