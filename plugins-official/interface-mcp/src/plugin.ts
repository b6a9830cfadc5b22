import type { InterfaceOptions, PluginDefinition } from 'factorly';
import { serveStdio } from './stdio-server.js';

/** Registers the `mcp` interface that `factorly serve` and `factorly wrap` run. */
export const plugin: PluginDefinition = {
  id: 'interface-mcp',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { interfaces: registrar.tokens.Interfaces, gateway: registrar.tokens.CallGateway },
      init({ interfaces, gateway }, context) {
        interfaces.add('mcp', {
          name: 'mcp',
          serve: (options: InterfaceOptions, signal: AbortSignal) =>
            serveStdio(gateway, { name: 'factorly', version: String(options.version ?? '0.0.0') }, signal),
        }, context.pluginId);
      },
    });
  },
};

export default plugin;
