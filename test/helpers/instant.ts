import { definePlugin, type PluginDefinition, type ToolProvider } from 'factorly';

/** A plugin adding `provider`'s tool type (plugin id `test-<type>`). */
export function providerPlugin(provider: ToolProvider): PluginDefinition {
  return definePlugin({
    id: `test-${provider.type}`,
    apiVersion: '1',
    register(reg) {
      reg.registerInit({
        deps: { providers: reg.tokens.ToolProviders },
        init: ({ providers }, ctx) => providers.add(provider.type, provider, ctx.pluginId),
      });
    },
  });
}

/** A plugin adding tool type `type`, whose calls `execute` answers in this process (no process spawned). */
export function answeringProvider(type: string, execute: ToolProvider['execute']): PluginDefinition {
  return providerPlugin({ type, keys: [], execute });
}

/**
 * The `instant` tool type: answers at once with its params as JSON, so a test of governance counts
 * decisions, not process spawns.
 */
export const instantProvider: PluginDefinition = answeringProvider('instant', async (call) => ({
  output: JSON.stringify(call.params),
  exitCode: 0,
}));
