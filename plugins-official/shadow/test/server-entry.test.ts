import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin } from 'factorly';
import type { Kernel } from 'factorly/testing';
import { shadowKernel } from './helpers.js';

/** A provider whose entry stands for sub-tools `<entry>.list`, `<entry>.get`, `<entry>.delete`, as an MCP server's does. */
const server = definePlugin({
  id: 'test-server',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { providers: reg.tokens.ToolProviders },
      init({ providers }, ctx) {
        providers.add(
          'fake-mcp',
          {
            type: 'fake-mcp',
            keys: [],
            expand: async (entry) =>
              ['list', 'get', 'delete'].map((remote) => ({ ...entry, name: `${entry.name}.${remote}` })),
            execute: async (call) => ({ output: `${call.tool.name} ok`, exitCode: 0 }),
          },
          ctx.pluginId,
        );
      },
    });
  },
});

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('rules on a server entry', () => {
  it('deny lists name sub-tools relative to the entry or by full name', async () => {
    kernel = (await shadowKernel('tools:\n  gh:\n    type: fake-mcp\n    shadow: {deny: [delete, gh.get]}\n', [server]))
      .kernel;
    const call = (tool: string) => kernel!.pipeline.call({ tool, params: {}, iface: 'mcp' });
    expect(await call('gh.list')).toMatchObject({ status: 'success', output: 'gh.list ok' });
    expect((await call('gh.delete')).error).toBe('tool "gh.delete" is denied by shadow policy');
    expect((await call('gh.get')).error).toBe('tool "gh.get" is denied by shadow policy');
  });

  it('limits each sub-tool per agent by default, and the whole server with scope: server', async () => {
    const yaml =
      'tools:\n  a:\n    type: fake-mcp\n    shadow: {rate_limit: 2/hour}\n  b:\n    type: fake-mcp\n    shadow: {rate_limit: 2/hour, scope: server}\n';
    kernel = (await shadowKernel(yaml, [server])).kernel;
    const call = async (tool: string, agentId: string) =>
      (await kernel!.pipeline.call({ tool, params: {}, iface: 'mcp', agentId })).status;
    expect([await call('a.list', 'x'), await call('a.list', 'x'), await call('a.list', 'x')]).toEqual([
      'success',
      'success',
      'blocked',
    ]);
    expect([await call('a.get', 'x'), await call('a.list', 'y')]).toEqual(['success', 'success']);
    expect([await call('b.list', 'x'), await call('b.get', 'y'), await call('b.delete', 'z')]).toEqual([
      'success',
      'success',
      'blocked',
    ]);
  });

  it('shares one bucket between tools with scope: global', async () => {
    const yaml =
      'tools:\n  p: {type: fake-mcp, shadow: {rate_limit: 1/day, scope: global}}\n  q: {type: fake-mcp, shadow: {rate_limit: 5/day, scope: tool}}\n  r: {type: fake-mcp, shadow: {rate_limit: 1/day, scope: global}}\n';
    kernel = (await shadowKernel(yaml, [server])).kernel;
    const call = async (tool: string) => (await kernel!.pipeline.call({ tool, params: {}, iface: 'mcp' })).status;
    expect([await call('p.list'), await call('r.get'), await call('q.list')]).toEqual([
      'success',
      'blocked',
      'success',
    ]);
  });
});
