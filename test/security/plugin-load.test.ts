import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { definePlugin, type PluginDefinition, type PluginRegistrar } from '../../src/plugins/define-plugin.js';
import type { Token } from '../../src/base/token.js';
import type { KeyedRegistry } from '../../src/kernel/registries.js';
import { KernelTokens } from '../../src/kernel/tokens.js';
import { startTestKernel } from '../helpers/kernel.js';

const YAML = 'tools:\n  t: {type: cli, command: echo, args: [ran]}\n';
const NAMES = {
  rule: 'half-rule',
  type: 'half',
  engine: 'half-engine',
  processor: 'half-processor',
  face: 'half-ui',
  backend: 'half-secrets',
  channel: 'half-channel',
  source: 'half-source',
  listener: 'half-listener',
  thing: 'half-thing',
};

/** An extension point a plugin provides (as the MCP interface provides its pass-throughs), and a token the failing plugin offers. */
const THINGS = Symbol.for('factorly:registry-owner.things') as Token<KeyedRegistry<object>>;
const OFFER = Symbol.for('factorly:half-loaded.offer') as Token<string>;
const slotOwner = definePlugin({
  id: 'registry-owner',
  apiVersion: '1',
  register(registrar) {
    registrar.provide(THINGS, registrar.keyedRegistry<object>('thing'));
    registrar.registerInit({ deps: {}, init: () => undefined });
  },
});

/** Adds one contribution to every extension point, then fails: in `init` (awaited) or in `register`. */
function halfLoaded(failIn: 'init' | 'register'): PluginDefinition {
  const {
    ShadowRules,
    ToolProviders,
    SandboxEngines,
    OutputProcessors,
    Interfaces,
    SecretBackends,
    ConfirmChannels,
    ToolSources,
    ConfigListeners,
  } = KernelTokens;
  const deps = {
    rules: ShadowRules,
    providers: ToolProviders,
    engines: SandboxEngines,
    processors: OutputProcessors,
    faces: Interfaces,
    backends: SecretBackends,
    channels: ConfirmChannels,
    sources: ToolSources,
    listeners: ConfigListeners,
    things: THINGS,
  };
  return definePlugin({
    id: 'half-loaded',
    apiVersion: '1',
    register(registrar: PluginRegistrar) {
      registrar.provide(OFFER, 'from a plugin that did not load');
      registrar.registerInit({
        deps,
        async init(all, { pluginId }) {
          all.rules.add(
            {
              name: NAMES.rule,
              order: 1,
              evaluate: () => ({ decision: 'deny', reason: 'a half-loaded plugin decided' }),
            },
            pluginId,
          );
          all.providers.add(
            NAMES.type,
            { type: NAMES.type, keys: [], execute: async () => ({ output: 'half', exitCode: 0 }) },
            pluginId,
          );
          all.engines.add(
            NAMES.engine,
            {
              name: NAMES.engine,
              compile: () => ({ ok: false, diagnostics: [] }),
              run: () => Promise.reject(new Error('x')),
            },
            pluginId,
          );
          all.processors.add(
            { name: NAMES.processor, order: 1, process: () => 'replaced by a half-loaded plugin' },
            pluginId,
          );
          all.faces.add(NAMES.face, { name: NAMES.face, serve: async () => undefined }, pluginId);
          all.backends.add(NAMES.backend, { name: NAMES.backend, readOnly: true, resolve: async () => 'x' }, pluginId);
          all.channels.add({ name: NAMES.channel, ask: async () => ({ approved: true }) }, pluginId);
          all.sources.add({ name: NAMES.source, tools: () => [] }, pluginId);
          all.listeners.add({ name: NAMES.listener, configLoaded: () => undefined }, pluginId);
          all.things.add(NAMES.thing, {}, pluginId);
          await Promise.resolve();
          if (failIn === 'init') throw new Error('init failed half-way');
        },
      });
      if (failIn === 'register') throw new Error('register failed after registerInit');
    },
  });
}

/** Captures the kernel's extension points, to look for what the failed plugin left behind. */
let seen: Record<string, { keys?: () => string[]; list?: () => { name: string }[] }> = {};
let offered: string | undefined;
const probe = definePlugin({
  id: 'probe',
  apiVersion: '1',
  register(registrar) {
    const {
      ShadowRules,
      ToolProviders,
      SandboxEngines,
      OutputProcessors,
      Interfaces,
      SecretBackends,
      ConfirmChannels,
      ToolSources,
      ConfigListeners,
    } = registrar.tokens;
    registrar.registerInit({
      deps: {
        rules: ShadowRules,
        providers: ToolProviders,
        engines: SandboxEngines,
        processors: OutputProcessors,
        faces: Interfaces,
        backends: SecretBackends,
        channels: ConfirmChannels,
        sources: ToolSources,
        listeners: ConfigListeners,
        things: THINGS,
        offer: registrar.optional(OFFER),
      },
      init: ({ offer, ...all }) => {
        seen = all as never;
        offered = offer;
      },
    });
  },
});

function leftBehind(): string[] {
  const names = Object.values(seen).flatMap(
    (registry) => registry.keys?.() ?? registry.list?.().map((entry) => entry.name) ?? [],
  );
  return names.filter((name) => name.startsWith('half'));
}

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('plugin load is transactional', () => {
  for (const failIn of ['init', 'register'] as const) {
    it(`leaves nothing registered by a plugin whose ${failIn} throws, and its rule never decides`, async () => {
      offered = 'not set';
      kernel = (await startTestKernel(YAML, [halfLoaded(failIn), slotOwner, probe])).kernel;
      expect(kernel.plugins.failed).toEqual([
        expect.objectContaining({ id: 'half-loaded', reason: expect.stringContaining('failed') }),
      ]);
      expect(leftBehind()).toEqual([]);
      expect(offered).toBeUndefined();
      expect(await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' })).toMatchObject({
        status: 'success',
        output: 'ran\n',
      });
    });
  }

  it('keeps what other plugins registered when a failing plugin collides with them', async () => {
    const clash = definePlugin({
      id: 'clash',
      apiVersion: '1',
      requires: ['provider-cli'],
      register(registrar) {
        registrar.registerInit({
          deps: { providers: registrar.tokens.ToolProviders, rules: registrar.tokens.ShadowRules },
          init({ providers, rules }, { pluginId }) {
            rules.add(
              { name: 'half-clash-rule', order: 1, evaluate: () => ({ decision: 'deny', reason: 'clash' }) },
              pluginId,
            );
            providers.add(
              'cli',
              { type: 'cli', keys: [], execute: async () => ({ output: 'impostor', exitCode: 0 }) },
              'provider-cli',
            );
          },
        });
      },
    });
    kernel = (await startTestKernel(YAML, [clash, slotOwner, probe])).kernel;
    expect(kernel.plugins.failed.map((f) => f.id)).toEqual(['clash']);
    expect(leftBehind()).toEqual([]);
    expect(await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' })).toMatchObject({
      status: 'success',
      output: 'ran\n',
    });
  });
});
