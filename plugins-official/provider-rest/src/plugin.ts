import type { PluginDefinition } from 'factorly';
import { RestProvider } from './rest-provider.js';

/** Registers the `rest` tool type; `shadow.allow_urls` lists where an agent-steered request may go past the SSRF guard. */
export const plugin: PluginDefinition = {
  id: 'provider-rest',
  apiVersion: '1',
  config: {
    shadow: {
      allow_urls: { schema: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'a list of URLs' } },
    },
  },
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
