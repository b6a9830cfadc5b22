import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRootScope } from '../../src/kernel/container.js';
import type { ToolProvider } from '../../src/contracts/tool.js';
import { createKernel, type Kernel } from '../../src/kernel/kernel.js';
import { KernelPhase, Lifecycle } from '../../src/kernel/lifecycle.js';
import { KeyedRegistry } from '../../src/kernel/registries.js';
import { KernelTokens } from '../../src/kernel/tokens.js';
import { definePlugin, type PluginDefinition, type PluginRegistrar } from '../../src/plugins/define-plugin.js';
import { loadPlugins } from '../../src/plugins/host.js';
import { plugin as cliPlugin } from '@factorly/plugin-provider-cli';
import { eventsOf, inline, startTestKernel } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

const CONFIG = 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n';

/**
 * A plugin that adds a provider (whose stop is recorded) and a stop hook of its own that reads the
 * log and appends to it while the kernel stops.
 */
function stopping(id: string, order: string[], requires: string[] = []): PluginDefinition {
  return definePlugin({
    id,
    apiVersion: '1',
    requires,
    register(registrar) {
      registrar.registerInit({
        deps: { providers: registrar.tokens.ToolProviders, log: registrar.tokens.LazyEventLog },
        init({ providers, log }, context) {
          order.push(`start ${id}`);
          const provider: ToolProvider = {
            type: id,
            keys: [],
            execute: async () => ({ output: '', exitCode: 0 }),
            stop: async () => void order.push(`provider ${id}`),
          };
          providers.add(id, provider, context.pluginId);
          context.onStop(async () => {
            const { seq } = await log().head();
            await log().append([{ type: 'session.closed', data: { sessionId: `${id} after ${seq}`, iface: 'test' } }]);
            order.push(`plugin ${id}`);
          });
        },
      });
    },
  });
}

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

function project(): string {
  const root = tempProject();
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(join(root, '.factorly', 'factorly.yaml'), CONFIG);
  return root;
}

const boot = (root: string, plugins: PluginDefinition[]) =>
  createKernel({ cwd: root, globalDir: join(root, 'no-global'), inlinePlugins: [cliPlugin, ...plugins].map(inline) });

describe('stopping the kernel', () => {
  it('runs in reverse start order, each plugin with its providers, and closes the log last even when it opened after start', async () => {
    const root = project();
    const order: string[] = [];
    kernel = await boot(root, [stopping('b', order, ['a']), stopping('a', order)]);
    // The first call opens the project's LMDB log, after every plugin started.
    expect(await kernel.pipeline.call({ tool: 'hi', params: {}, iface: 'cli' })).toMatchObject({ status: 'success' });
    expect(await kernel.stop()).toEqual([]);
    expect(order).toEqual(['start a', 'start b', 'provider b', 'plugin b', 'provider a', 'plugin a']);
    // What the plugins appended while stopping is in the log.
    kernel = await boot(root, []);
    const closed = (await eventsOf(kernel.log())).filter((event) => event.type === 'session.closed');
    expect(closed.map((event) => event.data.sessionId)).toEqual([
      expect.stringMatching(/^b after \d+$/),
      expect.stringMatching(/^a after \d+$/),
    ]);
  });
});

describe('phases', () => {
  it('are entered when they begin: register while plugins register, init while they initialise', async () => {
    const lifecycle = new Lifecycle();
    const seen: string[] = [];
    const watcher = definePlugin({
      id: 'watcher',
      apiVersion: '1',
      register(registrar) {
        seen.push(`register in ${lifecycle.phase}`);
        registrar.registerInit({ deps: {}, init: () => void seen.push(`init in ${lifecycle.phase}`) });
      },
    });
    const scope = createRootScope();
    scope.registerValue(KernelTokens.ToolProviders, new KeyedRegistry<ToolProvider>('tool type'));
    await loadPlugins([], [inline(watcher)], scope, lifecycle);
    expect(seen).toEqual(['register in register', 'init in init']);
  });

  it('are entered in order only, and a stop hook cannot be added once stopping began', async () => {
    const lifecycle = new Lifecycle();
    expect(() => lifecycle.enter(KernelPhase.Ready)).toThrow(
      expect.objectContaining({ code: 'LIFECYCLE', message: 'the kernel cannot enter ready from discover' }),
    );
    await lifecycle.stop();
    expect(() => lifecycle.onStop('late', () => undefined)).toThrow(
      expect.objectContaining({
        code: 'LIFECYCLE',
        message: 'registering a stop hook (late) is not possible once the kernel is stopped',
      }),
    );
  });

  it('refuse a call and the log once the kernel has stopped', async () => {
    const started = await startTestKernel(CONFIG);
    await started.kernel.stop();
    await expect(started.kernel.pipeline.call({ tool: 'hi', params: {}, iface: 'cli' })).rejects.toMatchObject({
      code: 'LIFECYCLE',
      message: 'calling "hi" is not possible once the kernel is stopped',
    });
    expect(() => started.kernel.log()).toThrow(
      expect.objectContaining({
        code: 'LIFECYCLE',
        message: 'using the event log is not possible once the kernel is stopped',
      }),
    );
  });

  it('refuse a registrar kept past register: the plugin fails with LIFECYCLE, the others load', async () => {
    let kept: PluginRegistrar | undefined;
    const keeper = definePlugin({
      id: 'keeper',
      apiVersion: '1',
      register(registrar) {
        kept = registrar;
        registrar.registerInit({
          deps: {},
          init: () => kept!.provide(KernelTokens.EventBus as never, {} as never),
        });
      },
    });
    const started = await startTestKernel(CONFIG, [keeper]);
    kernel = started.kernel;
    expect(kernel.plugins.failed).toEqual([
      expect.objectContaining({
        id: 'keeper',
        code: 'LIFECYCLE',
        reason: 'plugin "keeper" called registrar.provide after its register returned',
      }),
    ]);
    expect(await kernel.pipeline.call({ tool: 'hi', params: {}, iface: 'cli' })).toMatchObject({ status: 'success' });
  });
});
