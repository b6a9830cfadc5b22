import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf } from '../../../test/helpers/kernel.js';
import { agent, start, stopKernel, upstreams } from './passthrough-kit.js';

afterEach(stopKernel);

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

  it('keeps one upstream process per session for 1,000 calls and stops it when the interface closes the session', async () => {
    const { kernel, passthrough } = await start();
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
    // Through the contract the session was opened through, not through the log.
    await passthrough.closeSession('two');
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
