import { describe, expect, it } from 'vitest';
import { createRootScope } from '../../src/kernel/container.js';
import { Lifecycle } from '../../src/kernel/lifecycle.js';
import { KeyedRegistry } from '../../src/kernel/registries.js';
import { KernelTokens } from '../../src/kernel/tokens.js';
import type { ToolProvider } from '../../src/contracts/tool.js';
import { definePlugin, type PluginDefinition } from '../../src/plugins/define-plugin.js';
import { loadPlugins } from '../../src/plugins/host.js';
import { checkApiVersion } from '../../src/plugins/manifest.js';
import { inline } from '../helpers/kernel.js';

function recorder(id: string, order: string[], requires: string[] = [], fail = false): PluginDefinition {
  return definePlugin({
    id,
    apiVersion: '1',
    requires,
    register(reg) {
      reg.registerInit({
        deps: {},
        init(_deps, ctx) {
          if (fail) throw new Error('init exploded');
          order.push(id);
          ctx.onStop(() => void order.push(`stop ${id}`));
        },
      });
    },
  });
}

async function load(plugins: PluginDefinition[]) {
  const lifecycle = new Lifecycle();
  const scope = createRootScope();
  scope.registerValue(KernelTokens.ToolProviders, new KeyedRegistry<ToolProvider>('tool type'));
  const report = await loadPlugins([], plugins.map(inline), scope, lifecycle);
  return { report, lifecycle };
}

describe('plugin host', () => {
  it('initialises plugins after the plugins they require and stops them in reverse', async () => {
    const order: string[] = [];
    const { report, lifecycle } = await load([
      recorder('a', order, ['c']),
      recorder('b', order),
      recorder('c', order, ['b']),
    ]);
    expect(order).toEqual(['b', 'c', 'a']);
    expect(report.loaded.map((p) => p.id)).toEqual(['b', 'c', 'a']);
    await lifecycle.stop();
    expect(order.slice(3)).toEqual(['stop a', 'stop c', 'stop b']);
  });

  it('names a dependency cycle and still loads the independent plugins', async () => {
    const order: string[] = [];
    const { report } = await load([recorder('x', order, ['y']), recorder('y', order, ['x']), recorder('free', order)]);
    expect(order).toEqual(['free']);
    const reasons = report.failed.map((f) => f.reason);
    expect(reasons).toContain('plugin dependency cycle: x → y → x');
    expect(reasons).toContain('plugin "y" requires plugin "x", which could not be loaded');
  });

  it('names a missing dependency', async () => {
    const { report } = await load([recorder('needs', [], ['ghost'])]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        id: 'needs',
        code: 'PLUGIN_DEPENDENCY',
        reason: 'plugin "needs" requires plugin "ghost", which is not installed',
      }),
    ]);
  });

  it('reports an init failure and fails the plugins that require it', async () => {
    const order: string[] = [];
    const { report } = await load([recorder('base', order, [], true), recorder('top', order, ['base'])]);
    expect(order).toEqual([]);
    expect(report.failed.map((f) => [f.id, f.reason])).toEqual([
      ['base', 'plugin "base" failed to initialise: init exploded'],
      ['top', 'plugin "top" requires plugin "base", which failed to load'],
    ]);
  });

  it('refuses a second provider for the same tool type, naming both plugins', async () => {
    const provider = (id: string) =>
      definePlugin({
        id,
        apiVersion: '1',
        register(reg) {
          reg.registerInit({
            deps: { providers: reg.tokens.ToolProviders },
            init: ({ providers }, ctx) =>
              providers.add(
                'cli',
                { type: 'cli', keys: [], execute: async () => ({ output: '', exitCode: 0 }) },
                ctx.pluginId,
              ),
          });
        },
      });
    const { report } = await load([provider('one'), provider('two')]);
    expect(report.failed[0].reason).toBe('tool type "cli" is provided twice: by plugin "one" and by plugin "two"');
  });

  it('accepts API versions of the same major and refuses others', () => {
    for (const ok of ['1', '^1', '1.x', '1.0.0', '~1.2']) expect(() => checkApiVersion(ok, 'p')).not.toThrow();
    expect(() => checkApiVersion('2', 'plugin "p"')).toThrow(
      'plugin "p" targets plugin API 2, but this factorly provides plugin API 1',
    );
    expect(() => checkApiVersion('latest', 'plugin "p"')).toThrow('apiVersion "latest" is not a version');
  });
});

describe('tokens plugins provide', () => {
  const GREETING = Symbol.for('factorly:greeter.greeting') as import('../../src/base/token.js').Token<{
    hello(): string;
  }>;
  const greeter = definePlugin({
    id: 'greeter',
    apiVersion: '1',
    register(reg) {
      reg.provide(GREETING, { hello: () => 'hello from greeter' });
      reg.registerInit({ deps: {}, init: () => undefined });
    },
  });
  function consumer(id: string, optional: boolean, seen: unknown[]): PluginDefinition {
    return definePlugin({
      id,
      apiVersion: '1',
      register(reg) {
        reg.registerInit({
          deps: { greeting: optional ? reg.optional(GREETING) : GREETING },
          init: ({ greeting }) =>
            void seen.push((greeting as { hello(): string } | undefined)?.hello() ?? 'nobody greets'),
        });
      },
    });
  }

  it('hands a provided value to every plugin that names its token, whatever their order', async () => {
    const seen: unknown[] = [];
    // "aaa" initialises before "greeter": every plugin registers before any initialises.
    const { report } = await load([consumer('aaa', false, seen), greeter, consumer('zzz', true, seen)]);
    expect(report.failed).toEqual([]);
    expect(seen).toEqual(['hello from greeter', 'hello from greeter']);
    expect(report.provided.map((entry) => [entry.id, entry.owner])).toEqual([['greeter.greeting', 'greeter']]);
  });

  it('gives an optional dependency nothing provides as undefined, and fails a required one, naming the token', async () => {
    const seen: unknown[] = [];
    const { report } = await load([consumer('needs', false, seen), consumer('copes', true, seen)]);
    expect(seen).toEqual(['nobody greets']);
    expect(report.failed).toEqual([
      expect.objectContaining({
        id: 'needs',
        code: 'PLUGIN_DEPENDENCY',
        reason: 'plugin "needs" needs "greeter.greeting" (as deps.greeting), which no installed plugin provides',
      }),
    ]);
  });

  it('refuses a token named after another plugin', async () => {
    const squatter = definePlugin({
      id: 'squatter',
      apiVersion: '1',
      register: (reg) => {
        reg.provide(GREETING, { hello: () => 'fake' });
        reg.registerInit({ deps: {}, init: () => undefined });
      },
    });
    const { report } = await load([greeter, squatter]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        id: 'squatter',
        code: 'PLUGIN_INVALID',
        reason: 'plugin "squatter" provides token "greeter.greeting": a plugin\'s tokens are named "squatter.<name>"',
      }),
    ]);
  });
});
