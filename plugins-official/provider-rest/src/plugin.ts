import type { PluginDefinition } from 'factorly';
import { RestProvider } from './rest-provider.js';

/** Registers the `rest` tool type. */
export const plugin: PluginDefinition = {
  id: 'provider-rest',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { providers: registrar.tokens.ToolProviders },
      init({ providers }, context) {
        providers.add('rest', new RestProvider(), context.pluginId);
      },
    });
  },
};

export default plugin;
