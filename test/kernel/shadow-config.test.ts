import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/kernel/config/load.js';
import { findConfig } from '../../src/kernel/config/paths.js';
import { maxCallsOf } from '../../src/kernel/contracts/shadow-policy.js';
import type { ToolDefinition, ToolProvider } from '../../src/kernel/contracts/tool.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { KeyedSlot } from '../../src/kernel/slots.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { CliProvider } from '../../plugins-official/provider-cli/src/cli-provider.js';
import { startTestKernel } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

function load(yaml: string) {
  const root = tempProject({ '.factorly/factorly.yaml': yaml });
  const providers = new KeyedSlot<ToolProvider>('tool type');
  providers.add('cli', new CliProvider(), 'provider-cli');
  return loadConfig(findConfig({ cwd: root, globalDir: `${root}/no-global` }), providers);
}

function errorOf(yaml: string): string {
  try {
    load(yaml);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

const tool = (shadow: string): string => `tools:\n  t:\n    type: cli\n    command: echo\n    shadow:\n${shadow}`;

describe('shadow blocks in the config', () => {
  it('parses every key into a typed policy', () => {
    const config = load(tool(
      '      deny: [drop]\n      confirm: true\n      rate_limit: 10/min\n      scope: server\n      max_calls: 7\n' +
      '      log_params: [q]\n      timeout: 90s\n      loop: {window: 1m, warn: 2, block: 3}\n      allow_urls: [http://localhost:8080]\n',
    ));
    expect(config.tools[0].shadow).toEqual({
      owner: 't', deny: ['drop'], confirm: true, rateLimit: { count: 10, unit: 'min', windowMs: 60_000, text: '10/min' },
      scope: 'server', maxCalls: 7, logParams: ['q'], confirmTimeoutMs: 90_000,
      loop: { enabled: true, windowMs: 60_000, warn: 2, block: 3 }, allowUrls: ['http://localhost:8080'],
    });
    expect(maxCallsOf(config.tools[0])).toBe(7);
  });

  it('gives max_calls its default of 100 and accepts day limits and loop: false', () => {
    const config = load(tool('      rate_limit: 500/day\n      loop: false\n'));
    expect(maxCallsOf(config.tools[0])).toBe(100);
    expect(config.tools[0].shadow).toMatchObject({ rateLimit: { count: 500, windowMs: 86_400_000 }, loop: { enabled: false } });
  });

  it('refuses a rate_limit typo with the line of the key', () => {
    expect(errorOf(tool('      rate_limit: 10/minn\n'))).toBe(
      'config: tool "t" has an invalid shadow.rate_limit: unknown unit "minn" in "10/minn"; did you mean "min"? (units: sec, min, hour, day) (.factorly/factorly.yaml:6)',
    );
    expect(errorOf(tool('      rate_limit: ten per minute\n'))).toBe(
      'config: tool "t" has an invalid shadow.rate_limit: "ten per minute" is not <count>/<unit> (for example "10/min"; units: sec, min, hour, day) (.factorly/factorly.yaml:6)',
    );
    expect(errorOf(tool('      rate_limit: 0/hour\n'))).toContain('the count in "0/hour" must be a whole number of at least 1');
    expect(errorOf(tool('      loop: {window: 2d}\n'))).toBe('config: tool "t" has an invalid shadow.loop.window: 2 days is longer than a day (.factorly/factorly.yaml:6)');
    expect(errorOf(tool('      loop: {block: 5000}\n'))).toBe(
      'config: tool "t" has an invalid shadow.loop.block: 5000 is above 1000 (identical calls are counted up to that) (.factorly/factorly.yaml:6)',
    );
  });

  it('names unknown keys, bad scopes, loop settings and lists with their lines', () => {
    const message = errorOf(tool('      denny: [x]\n      scope: agents\n      loop: {warn: 5, block: 2, windwo: 1m}\n      confirm: yes-please\n'));
    expect(message.split('\n')).toEqual([
      'config: tool "t" has unknown key "shadow.denny"; did you mean "deny"? (.factorly/factorly.yaml:6)',
      'config: tool "t" has an invalid shadow.confirm: expected a list of names, got "yes-please" (.factorly/factorly.yaml:9)',
      'config: tool "t" has an invalid shadow.scope: "agents" is not one of agent, tool, server, global; did you mean "agent"? (.factorly/factorly.yaml:7)',
      'config: tool "t" has unknown key "shadow.loop.windwo"; did you mean "window"? (.factorly/factorly.yaml:8)',
      'config: tool "t" has an invalid shadow.loop: block (2) must not be below warn (5) (.factorly/factorly.yaml:8)',
    ]);
  });
});

const sourced = (name: string, shadow?: ToolDefinition['shadow']): ToolDefinition => ({
  name, type: 'cli', description: 'built in', hidden: false, parameters: [], shadow,
  spec: { command: 'echo', args: [name] }, source: { file: 'plugin:builtins', line: 0 },
});

/** A stand-in for the built-ins plugin: a ToolSource with `factorly.*` tools and their default policies. */
const builtins = definePlugin({
  id: 'test-builtins',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { sources: reg.tokens.ToolSources },
      init({ sources }, ctx) {
        const shell = sourced('factorly.shell', { owner: 'factorly.shell', confirm: true, maxCalls: 5 });
        sources.add({ name: 'builtins', tools: () => [shell, sourced('factorly.fetch')] }, ctx.pluginId);
      },
    });
  },
});

/** A provider whose one entry stands for several sub-tools, as an upstream MCP server does. */
const server = definePlugin({
  id: 'test-server',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { providers: reg.tokens.ToolProviders },
      init({ providers }, ctx) {
        providers.add('fake-mcp', {
          type: 'fake-mcp', keys: [],
          expand: async (entry) => ['list', 'delete'].map((remote) => ({ ...entry, name: `${entry.name}.${remote}` })),
          execute: async () => ({ output: '', exitCode: 0 }),
        }, ctx.pluginId);
      },
    });
  },
});

describe('shadow policies of built-ins and server entries', () => {
  let kernel: Kernel | undefined;
  afterEach(async () => {
    await kernel?.stop();
    kernel = undefined;
  });

  it('lays a factorly.* shadow block over the built-in default, user fields winning', async () => {
    const yaml = 'tools:\n  factorly.shell:\n    shadow: {confirm: false, rate_limit: 2/sec}\n  factorly.fetch:\n    shadow: {allow_urls: ["http://127.0.0.1"]}\n';
    kernel = (await startTestKernel(yaml, [builtins])).kernel;
    expect(kernel.registry.get('factorly.shell')!.shadow).toEqual({
      owner: 'factorly.shell', confirm: false, maxCalls: 5, rateLimit: { count: 2, unit: 'sec', windowMs: 1000, text: '2/sec' },
    });
    expect(kernel.registry.get('factorly.fetch')!.shadow).toEqual({ owner: 'factorly.fetch', allowUrls: ['http://127.0.0.1'] });
  });

  it('lets a built-in overlay turn confirmation off with an explicit list', async () => {
    kernel = (await startTestKernel('tools:\n  factorly.shell:\n    shadow: {confirm: [nothing]}\n', [builtins])).kernel;
    expect(kernel.registry.get('factorly.shell')!.shadow?.confirm).toEqual(['nothing']);
  });

  it('refuses an overlay for a built-in nobody provides, or one with other keys', async () => {
    await expect(startTestKernel('tools:\n  factorly.shel:\n    shadow: {confirm: true}\n', [builtins])).rejects.toThrow(
      'config: tool "factorly.shel" adjusts a built-in tool, but no built-in tool has that name (.factorly/factorly.yaml:2; built-in tools: factorly.shell, factorly.fetch)',
    );
    // Keys other than the common ones are the built-in's provider's: checked once the built-in is known.
    await expect(startTestKernel('tools:\n  factorly.shell:\n    description: mine\n    shadow: {confirm: true}\n', [builtins])).rejects.toThrow(
      'config: tool "factorly.shell" has key "description", but an entry for a built-in tool may only hold shadow, timeout, hidden, max_output (.factorly/factorly.yaml:3)',
    );
    expect(errorOf('tools:\n  factorly.shell: {}\n')).toContain('adjusts a built-in tool but sets nothing');
  });

  it('gives the sub-tools of a server entry the entry\'s policy, owned by the entry', async () => {
    kernel = (await startTestKernel('tools:\n  gh:\n    type: fake-mcp\n    shadow: {deny: [delete]}\n', [server])).kernel;
    expect(kernel.registry.get('gh.delete')!.shadow).toEqual({ owner: 'gh', deny: ['delete'] });
    expect(kernel.registry.get('gh.list')!.shadow).toEqual({ owner: 'gh', deny: ['delete'] });
  });
});
