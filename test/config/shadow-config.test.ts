import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/contracts/tool.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../helpers/kernel.js';

const sourced = (name: string, shadow?: ToolDefinition['shadow']): ToolDefinition => ({
  name,
  type: 'cli',
  description: 'built in',
  hidden: false,
  parameters: [],
  ...(shadow ? { shadow } : {}),
  spec: { command: 'echo', args: [name] },
  source: { file: 'plugin:builtins', line: 0 },
});

/** A rule plugin's declaration of the `shadow:` keys it reads (the kernel knows none of its own). */
const rules = definePlugin({
  id: 'test-rules',
  apiVersion: '1',
  config: {
    shadow: {
      ask: { schema: { type: 'boolean' } },
      budget: {
        schema: { type: 'object', properties: { calls: { type: 'integer', minimum: 1 } }, additionalProperties: false },
        check: (value, problem) => {
          if ((value as { calls?: number }).calls === 13) problem('13 is unlucky', ['calls']);
        },
      },
    },
  },
  register: (reg) => reg.registerInit({ deps: {}, init: () => undefined }),
});

/** A stand-in for the built-ins plugin: a ToolSource with `factorly.*` tools and their default policies. */
const builtins = definePlugin({
  id: 'test-builtins',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { sources: reg.tokens.ToolSources },
      init({ sources }, ctx) {
        const shell = sourced('factorly.shell', { ask: true, budget: { calls: 5 } });
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
        providers.add(
          'fake-mcp',
          {
            type: 'fake-mcp',
            keys: [],
            expand: async (entry) =>
              ['list', 'delete'].map((remote) => ({ ...entry, name: `${entry.name}.${remote}` })),
            execute: async () => ({ output: '', exitCode: 0 }),
          },
          ctx.pluginId,
        );
      },
    });
  },
});

const tool = (shadow: string): string => `tools:\n  t:\n    type: cli\n    command: echo\n    shadow:\n${shadow}`;

describe('shadow blocks: keys the rules declare', () => {
  let kernel: Kernel | undefined;
  afterEach(async () => {
    await kernel?.stop();
    kernel = undefined;
  });

  it('keeps a block as written once each key passed the schema and checks of the plugin that declared it', async () => {
    kernel = (await startTestKernel(tool('      ask: true\n      budget: {calls: 7}\n'), [rules])).kernel;
    expect(kernel.registry.get('t')!.shadow).toEqual({ ask: true, budget: { calls: 7 } });
  });

  it('names an undeclared key, a schema mistake and a failed check with their lines', async () => {
    await expect(
      startTestKernel(tool('      asks: true\n      budget: {calls: 0, call: 2}\n'), [rules]),
    ).rejects.toThrow(
      [
        'config: tool "t" has unknown key "shadow.asks"; did you mean "ask"? (.factorly/factorly.yaml:6)',
        'config: tool "t" has unknown key "shadow.budget.call"; did you mean "calls"? (.factorly/factorly.yaml:7)',
        'config: tool "t" has an invalid shadow.budget.calls: 0 must be >= 1 (.factorly/factorly.yaml:7)',
      ].join('\n'),
    );
    await expect(startTestKernel(tool('      budget:\n        calls: 13\n'), [rules])).rejects.toThrow(
      'config: tool "t" has an invalid shadow.budget.calls: 13 is unlucky (.factorly/factorly.yaml:7)',
    );
  });

  it('refuses every shadow key when no plugin declares it (a rule that did not load leaves no tool ungoverned)', async () => {
    await expect(startTestKernel(tool('      ask: true\n'))).rejects.toThrow(
      'config: tool "t" has unknown key "shadow.ask" (no installed plugin takes shadow settings) (.factorly/factorly.yaml:6)',
    );
  });

  it('lays a factorly.* shadow block over the built-in default, user keys winning', async () => {
    const yaml =
      'tools:\n  factorly.shell:\n    shadow: {ask: false}\n  factorly.fetch:\n    shadow: {budget: {calls: 2}}\n';
    kernel = (await startTestKernel(yaml, [rules, builtins])).kernel;
    expect(kernel.registry.get('factorly.shell')!.shadow).toEqual({ ask: false, budget: { calls: 5 } });
    expect(kernel.registry.get('factorly.fetch')!.shadow).toEqual({ budget: { calls: 2 } });
  });

  it('refuses an overlay for a built-in nobody provides, or one with other keys', async () => {
    await expect(
      startTestKernel('tools:\n  factorly.shel:\n    shadow: {ask: true}\n', [rules, builtins]),
    ).rejects.toThrow(
      'config: tool "factorly.shel" adjusts a built-in tool, but no built-in tool has that name (.factorly/factorly.yaml:2; built-in tools: factorly.shell, factorly.fetch)',
    );
    // Keys other than the common ones are the built-in's provider's: checked once the built-in is known.
    await expect(
      startTestKernel('tools:\n  factorly.shell:\n    description: mine\n    shadow: {ask: true}\n', [rules, builtins]),
    ).rejects.toThrow(
      'config: tool "factorly.shell" has key "description", but an entry for a built-in tool may only hold shadow, timeout, hidden, max_output (.factorly/factorly.yaml:3)',
    );
    await expect(startTestKernel('tools:\n  factorly.shell: {}\n', [builtins])).rejects.toThrow(
      'adjusts a built-in tool but sets nothing',
    );
  });

  it("gives the sub-tools of a server entry the entry's block", async () => {
    kernel = (await startTestKernel('tools:\n  gh:\n    type: fake-mcp\n    shadow: {ask: true}\n', [rules, server]))
      .kernel;
    expect(kernel.registry.get('gh.delete')).toMatchObject({ shadow: { ask: true }, expandedFrom: 'gh' });
    expect(kernel.registry.get('gh.list')).toMatchObject({ shadow: { ask: true }, expandedFrom: 'gh' });
  });
});
