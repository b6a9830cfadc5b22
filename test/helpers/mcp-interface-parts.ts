import { plugin as mcpInterface } from '@factorly/plugin-interface-mcp';
import { McpTokens, type McpPassthrough } from '@factorly/plugin-interface-mcp/api';
import type { CallGateway, PluginDefinition } from 'factorly';

/**
 * The MCP interface plugin (whose extension point the pass-through is added to) and a plugin that
 * takes what an MCP interface would get: the pass-through and the call gateway.
 */
export function interfaceParts(): {
  plugins: PluginDefinition[];
  passthrough(): McpPassthrough;
  gateway(): CallGateway;
} {
  let passthrough: McpPassthrough | undefined;
  let gateway: CallGateway | undefined;
  const grab: PluginDefinition = {
    id: 'grab-interface-parts',
    apiVersion: '1',
    requires: ['provider-mcp'],
    register(registrar) {
      registrar.registerInit({
        deps: { registry: McpTokens.Passthroughs, calls: registrar.tokens.CallGateway },
        init: ({ registry, calls }) => {
          passthrough = registry.get('mcp');
          gateway = calls;
        },
      });
    },
  };
  return { plugins: [mcpInterface, grab], passthrough: () => passthrough!, gateway: () => gateway! };
}
