import type { PluginDefinition } from 'factorly';
import { McpProvider } from './mcp-provider.js';

/** Registers the `mcp` tool type (upstream MCP servers). The kernel stops the provider, and so every server, when it stops. */
export const plugin: PluginDefinition = {
  id: 'provider-mcp',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { providers: registrar.tokens.ToolProviders, standing: registrar.tokens.StandingSecrets },
      init({ providers, standing }, context) {
        providers.add('mcp', new McpProvider(standing), context.pluginId);
      },
    });
  },
};

export default plugin;
