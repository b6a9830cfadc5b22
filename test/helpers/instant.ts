import { definePlugin, type PluginDefinition } from 'factorly';

/**
 * The `instant` tool type: answers at once with its params as JSON, so a test of governance counts
 * decisions, not process spawns.
 */
export const instantProvider: PluginDefinition = definePlugin({
  id: 'test-instant',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { providers: reg.tokens.ToolProviders },
      init: ({ providers }, ctx) =>
        providers.add(
          'instant',
          {
            type: 'instant',
            keys: [],
            execute: async (call) => ({ output: JSON.stringify(call.params), exitCode: 0 }),
          },
          ctx.pluginId,
        ),
    });
  },
});
