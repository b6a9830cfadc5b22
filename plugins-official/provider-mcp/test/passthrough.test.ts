import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpSessionLink } from '@factorly/plugin-interface-mcp/api';
import type { ClientLink } from 'factorly';
import type { Kernel } from '../../../src/kernel/kernel.js';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { REPO } from '../../../test/helpers/project.js';
import { plugin as vaultPlugin } from '@factorly/plugin-vault';
import { plugin as mcpPlugin } from '../src/plugin.js';
import { interfaceParts } from './grab-passthrough.js';
import { childProcesses } from './processes.js';

const UPSTREAM = resolve(REPO, 'test', 'fixtures', 'conformance-upstream', 'server.mjs');
const upstreams = () => childProcesses().filter((child) => child.args.includes(UPSTREAM));

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

const entry = (name: string, prefix: boolean) =>
  `  ${name}: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(UPSTREAM)}, stdio], prefix: ${prefix}}\n`;

/** A kernel fronting the conformance upstream over stdio (as `up`, or as each of `names` with prefixes), and the pass-through the MCP interface would get. */
async function start(names?: string[]) {
  const parts = interfaceParts();
  const tools = names ? names.map((name) => entry(name, true)).join('') : entry('up', false);
  const started = await startTestKernel(`tools:\n${tools}`, [mcpPlugin, ...parts.plugins]);
  kernel = started.kernel;
  return { ...started, passthrough: parts.passthrough() };
}

/** An agent session's side of the channel: records what reaches it and answers requests with `answers`. */
function agent(
  sessionId: string,
  capabilities: Record<string, unknown>,
  answers: Record<string, Record<string, unknown>> = {},
) {
  const seen: { via: 'call' | 'session'; method: string; params: Record<string, unknown> }[] = [];
  const channel = (via: 'call' | 'session') => ({
    notify: async (method: string, params: Record<string, unknown>) => void seen.push({ via, method, params }),
    request: async (method: string, params: Record<string, unknown>) => {
      seen.push({ via, method, params });
      if (!answers[method])
        throw Object.assign(new Error(`MCP error -32601: ${method} is not supported here`), { code: -32601 });
      return answers[method];
    },
  });
  const session: McpSessionLink = { sessionId, agentId: `agent-${sessionId}`, capabilities, ...channel('session') };
  const call = (progressToken?: string): ClientLink => ({ sessionId, progressToken, capabilities, ...channel('call') });
  return { session, call, seen };
}

describe('mcp pass-through: what an upstream sends reaches the session that called', () => {
  it("relays progress under the agent's own token and log messages on the call, before the result", async () => {
    const { kernel } = await start();
    const a = agent('s1', {});
    const outcome = await kernel.pipeline.call({
      tool: 'test_tool_with_progress',
      params: {},
      iface: 'mcp',
      sessionId: 's1',
      client: a.call('agent-token-7'),
    });
    expect(outcome).toMatchObject({ status: 'success', output: 'Progress tool finished' });
    expect(a.seen.map((s) => [s.via, s.method, s.params.progressToken, s.params.progress])).toEqual([
      ['call', 'notifications/progress', 'agent-token-7', 0],
      ['call', 'notifications/progress', 'agent-token-7', 50],
      ['call', 'notifications/progress', 'agent-token-7', 100],
    ]);
    const logged = await kernel.pipeline.call({
      tool: 'test_tool_with_logging',
      params: {},
      iface: 'mcp',
      sessionId: 's1',
      client: a.call(),
    });
    expect(logged.status).toBe('success');
    expect(a.seen.slice(3).map((s) => [s.via, s.method, s.params.data])).toEqual([
      ['call', 'notifications/message', 'Tool execution started'],
      ['call', 'notifications/message', 'Tool processing data'],
      ['call', 'notifications/message', 'Tool execution completed'],
    ]);
  });

  it('sends sampling and elicitation to the calling session only and returns its answers unchanged', async () => {
    const { kernel, log } = await start();
    const reply = {
      role: 'assistant',
      content: { type: 'text', text: 'from A' },
      model: 'model-a',
      stopReason: 'endTurn',
      _meta: { extra: 'kept' },
    };
    const a = agent('A', { sampling: {} }, { 'sampling/createMessage': reply });
    const b = agent(
      'B',
      { sampling: {}, elicitation: {} },
      { 'elicitation/create': { action: 'accept', content: { username: 'bee', email: 'b@example.com' } } },
    );
    const [fromA, fromB] = await Promise.all([
      kernel.pipeline.call({
        tool: 'test_sampling',
        params: { prompt: 'hello' },
        iface: 'mcp',
        sessionId: 'A',
        client: a.call(),
      }),
      kernel.pipeline.call({
        tool: 'test_elicitation',
        params: { message: 'who are you?' },
        iface: 'mcp',
        sessionId: 'B',
        client: b.call(),
      }),
    ]);
    expect(fromA).toMatchObject({ status: 'success', output: 'LLM response: from A' });
    expect(fromB).toMatchObject({
      status: 'success',
      output: 'User response: action=accept, content={"username":"bee","email":"b@example.com"}',
    });
    expect(a.seen).toEqual([
      {
        via: 'call',
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 100 },
      },
    ]);
    expect(b.seen.map((s) => s.method)).toEqual(['elicitation/create']);
    // Each session got its own upstream connection, which declared that session's capabilities.
    const noElicitation = await kernel.pipeline.call({
      tool: 'test_elicitation',
      params: { message: 'x' },
      iface: 'mcp',
      sessionId: 'A',
      client: a.call(),
    });
    expect(noElicitation).toMatchObject({
      status: 'error',
      error: 'test_elicitation needs a client with the elicitation capability',
    });
    const forwarded = (await eventsOf(log)).filter((e) => e.type === 'mcp.forwarded').map((e) => e.data);
    expect(forwarded).toEqual(
      expect.arrayContaining([
        {
          direction: 'to_client',
          method: 'sampling/createMessage',
          server: 'up',
          sessionId: 'A',
          status: 'success',
          durationMs: expect.any(Number),
        },
        {
          direction: 'to_client',
          method: 'elicitation/create',
          server: 'up',
          sessionId: 'B',
          status: 'success',
          durationMs: expect.any(Number),
        },
      ]),
    );
  });

  it("gives the upstream the agent's error when the agent refuses a request, and a clear one for calls without a session", async () => {
    const { kernel } = await start();
    const refusing = agent('R', { sampling: {} });
    const refused = await kernel.pipeline.call({
      tool: 'test_sampling',
      params: { prompt: 'p' },
      iface: 'mcp',
      sessionId: 'R',
      client: refusing.call(),
    });
    expect(refused).toMatchObject({
      status: 'error',
      error: 'upstream MCP server "up": MCP error -32601: sampling/createMessage is not supported here',
    });
    const cli = await kernel.pipeline.call({ tool: 'test_sampling', params: { prompt: 'p' }, iface: 'cli' });
    expect(cli).toMatchObject({ status: 'error', error: 'test_sampling needs a client with the sampling capability' });
  });

  it('keeps one upstream process per session for 1,000 calls and stops it when the session closes', async () => {
    const { kernel } = await start();
    expect(upstreams()).toHaveLength(1);
    const a = agent('one', {});
    for (let i = 0; i < 1000; i += 1) {
      const outcome = await kernel.pipeline.call({
        tool: 'test_simple_text',
        params: {},
        iface: 'mcp',
        sessionId: 'one',
        client: a.call(),
      });
      if (outcome.status !== 'success') throw new Error(`call ${i}: ${JSON.stringify(outcome)}`);
    }
    // A session declaring no capabilities adopts the connection opened at start-up.
    expect(upstreams()).toHaveLength(1);
    const b = agent('two', { sampling: {} });
    await kernel.pipeline.call({
      tool: 'test_simple_text',
      params: {},
      iface: 'mcp',
      sessionId: 'two',
      client: b.call(),
    });
    expect(upstreams()).toHaveLength(2);
    await kernel.log().append([{ type: 'session.closed', data: { sessionId: 'two', iface: 'mcp' } }]);
    await expect.poll(() => upstreams().length).toBe(1);
  });
});

describe('mcp pass-through across a config reload', () => {
  it("keeps an unchanged server and its sessions' connections running, and restarts a changed one", async () => {
    const { kernel } = await start();
    const a = agent('A', { sampling: {} });
    await kernel.pipeline.call({
      tool: 'test_simple_text',
      params: {},
      iface: 'mcp',
      sessionId: 'A',
      client: a.call(),
    });
    const before = upstreams()
      .map((child) => child.pid)
      .sort();
    expect(before).toHaveLength(1);
    appendFileSync(kernel.paths.mainFile, '  hello: {type: cli, command: echo, args: [hi]}\n');
    expect(await kernel.reload()).toBe(true);
    // Listing the tools again takes a connection of its own (the first session took the start-up one).
    expect(upstreams().map((child) => child.pid)).toEqual(expect.arrayContaining(before));
    const again = await kernel.pipeline.call({
      tool: 'test_simple_text',
      params: {},
      iface: 'mcp',
      sessionId: 'A',
      client: a.call(),
    });
    expect(again.status).toBe('success');
    expect(upstreams().map((child) => child.pid)).toEqual(expect.arrayContaining(before));
    writeFileSync(
      kernel.paths.mainFile,
      readFileSync(kernel.paths.mainFile, 'utf8').replace('stdio]', 'stdio, changed]'),
    );
    expect(await kernel.reload()).toBe(true);
    await expect.poll(() => upstreams().filter((child) => before.includes(child.pid))).toEqual([]);
    expect(upstreams().map((child) => child.args)).toEqual([expect.stringContaining('stdio changed')]);
  });
});

describe('mcp pass-through: secrets', () => {
  it('scrubs the secrets an upstream was started with from forwarded answers, errors and their events', async () => {
    const parts = interfaceParts();
    const started = await startTestKernel(
      `vault_backends:
  pm: {type: cli, get: {command: node, args: ["-e", "console.log('pm-' + process.argv[1] + '-value')", "{{key}}"]}}
tools:
  up: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(UPSTREAM)}, stdio], env: {TOKEN: "{{pm:token}}"}, prefix: false}
`,
      [vaultPlugin, mcpPlugin, ...parts.plugins],
    );
    kernel = started.kernel;
    await parts.passthrough().openSession(agent('S', {}).session);
    // The agent typing the secret in is the simplest way to have the upstream echo it.
    const prompt = await parts
      .passthrough()
      .forward(
        'prompts/get',
        { name: 'test_prompt_with_arguments', arguments: { arg1: 'pm-token-value', arg2: 'x' } },
        { sessionId: 'S' },
      );
    expect(JSON.stringify(prompt)).not.toContain('pm-token-value');
    expect(JSON.stringify(prompt)).toContain('[REDACTED');
    const failed = await parts
      .passthrough()
      .forward('resources/read', { uri: 'test://pm-token-value' }, { sessionId: 'S' })
      .catch((error: Error) => error);
    expect((failed as Error).message).toMatch(/^MCP error -32602: Resource not found: test:\/\/\[REDACTED[^\]]*\]$/);
    const events = JSON.stringify(await eventsOf(started.log));
    expect(events).toContain('mcp.forwarded');
    expect(events).not.toContain('pm-token-value');
  });
});

describe('mcp pass-through: roots', () => {
  it('asks the calling session for its roots and tells its upstream connection when they change', async () => {
    const server = resolve(import.meta.dirname, 'fixtures', 'roots-server.mjs');
    const parts = interfaceParts();
    kernel = (
      await startTestKernel(
        `tools:\n  r: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}], prefix: false}\n`,
        [mcpPlugin, ...parts.plugins],
      )
    ).kernel;
    const roots = [{ uri: 'file:///work', name: 'work' }];
    const s = agent('S', { roots: { listChanged: true } }, { 'roots/list': { roots } });
    await parts.passthrough().openSession(s.session);
    const first = await kernel.pipeline.call({
      tool: 'roots',
      params: {},
      iface: 'mcp',
      sessionId: 'S',
      client: s.call(),
    });
    expect(JSON.parse(first.output)).toEqual({ roots, changes: 0 });
    await parts.passthrough().clientNotified('S', 'notifications/roots/list_changed', {});
    const second = await kernel.pipeline.call({
      tool: 'roots',
      params: {},
      iface: 'mcp',
      sessionId: 'S',
      client: s.call(),
    });
    expect(JSON.parse(second.output)).toEqual({ roots, changes: 1 });
    expect(s.seen.map((seen) => [seen.via, seen.method])).toEqual([
      ['call', 'roots/list'],
      ['call', 'roots/list'],
    ]);
  });
});

describe('mcp pass-through: resources, prompts and completions of several servers', () => {
  it('declares the union of what the servers offer', async () => {
    const { passthrough } = await start();
    expect(passthrough.capabilities()).toEqual({
      resources: { subscribe: true },
      prompts: {},
      completions: {},
      logging: {},
    });
  });

  it('pages through each server in turn, prefixes prompt names, and routes a prompt back to its server', async () => {
    const { passthrough, log } = await start(['a', 'b']);
    const a = agent('S', {});
    await passthrough.openSession(a.session);
    const first = await passthrough.forward('prompts/list', {}, { sessionId: 'S' });
    expect((first.prompts as { name: string }[]).map((p) => p.name)).toEqual([
      'a.test_simple_prompt',
      'a.test_prompt_with_arguments',
      'a.test_prompt_with_embedded_resource',
      'a.test_prompt_with_image',
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await passthrough.forward('prompts/list', { cursor: first.nextCursor }, { sessionId: 'S' });
    expect((second.prompts as { name: string }[])[0].name).toBe('b.test_simple_prompt');
    expect(second.nextCursor).toBeUndefined();
    const prompt = await passthrough.forward(
      'prompts/get',
      { name: 'b.test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y' } },
      { sessionId: 'S' },
    );
    expect(prompt).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='x', arg2='y'" } }],
    });
    await expect(passthrough.forward('prompts/list', { cursor: 'nonsense' }, { sessionId: 'S' })).rejects.toMatchObject(
      {
        code: -32602,
        message: 'invalid cursor "nonsense": pass back a nextCursor from an earlier page',
        data: { factorlyCode: 'PARAMS_INVALID' },
      },
    );
    const forwarded = (await eventsOf(log))
      .filter((e) => e.type === 'mcp.forwarded')
      .map((e) => e.data as { method: string; server: string; target?: string });
    expect(forwarded.map((f) => [f.method, f.server, f.target])).toEqual([
      ['prompts/list', 'a', undefined],
      ['prompts/list', 'b', undefined],
      ['prompts/get', 'b', 'b.test_prompt_with_arguments'],
    ]);
  });

  it("reads resources and templates, passes subscriptions' updates to the session, and returns the server's own error", async () => {
    const { passthrough } = await start();
    const s = agent('S', {});
    await passthrough.openSession(s.session);
    const listed = await passthrough.forward('resources/list', {}, { sessionId: 'S' });
    expect((listed.resources as { uri: string }[]).map((r) => r.uri)).toEqual([
      'test://static-text',
      'test://static-binary',
      'test://watched-resource',
    ]);
    expect(await passthrough.forward('resources/read', { uri: 'test://template/42/data' }, { sessionId: 'S' })).toEqual(
      {
        contents: [
          {
            uri: 'test://template/42/data',
            mimeType: 'application/json',
            text: '{"id":"42","templateTest":true,"data":"Data for ID: 42"}',
          },
        ],
      },
    );
    expect(
      await passthrough.forward('resources/subscribe', { uri: 'test://watched-resource' }, { sessionId: 'S' }),
    ).toEqual({});
    await expect
      .poll(() => s.seen)
      .toEqual([
        { via: 'session', method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } },
      ]);
    await expect(
      passthrough.forward('resources/read', { uri: 'test://nope' }, { sessionId: 'S' }),
    ).rejects.toMatchObject({
      // Exactly what the upstream put on the wire (its SDK writes the "MCP error <code>: " itself); no second prefix from us.
      code: -32602,
      message: 'MCP error -32602: Resource not found: test://nope',
    });
    expect(
      await passthrough.forward(
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } },
        { sessionId: 'S' },
      ),
    ).toEqual({ completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false } });
  });
});
