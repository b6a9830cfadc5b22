import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { plugin as vaultPlugin } from '@factorly/plugin-vault';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as mcpPlugin } from '../src/plugin.js';
import { interfaceParts } from '../../../test/helpers/mcp-interface-parts.js';
import { agent, keep, start, stopKernel, UPSTREAM } from './passthrough-kit.js';

afterEach(stopKernel);

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
    keep(started.kernel);
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
    const { kernel } = await startTestKernel(
      `tools:\n  r: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}], prefix: false}\n`,
      [mcpPlugin, ...parts.plugins],
    );
    keep(kernel);
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
