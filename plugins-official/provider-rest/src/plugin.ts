import type { PluginDefinition } from 'factorly';
import { RestProvider, type RestOptions } from './rest-provider.js';

export type { RestOptions } from './rest-provider.js';

/**
 * Registers the `rest` tool type; `shadow.allow_urls` lists where an agent-steered request or a
 * redirect may go past the SSRF guard. `options` replace how host names resolve (for tests).
 */
export function restPlugin(options: RestOptions = {}): PluginDefinition {
  return {
    id: 'provider-rest',
    apiVersion: '1',
    config: {
      shadow: {
        allow_urls: {
          schema: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'a list of URLs' },
        },
      },
    },
    register(registrar) {
      registrar.registerInit({
        deps: { providers: registrar.tokens.ToolProviders },
        init({ providers }, context) {
          providers.add('rest', new RestProvider(options), context.pluginId);
        },
      });
    },
  };
}

export const plugin: PluginDefinition = restPlugin();

export default plugin;
