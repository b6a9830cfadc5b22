import type { PluginDefinition } from 'factorly';
import { CliProvider } from './cli-provider.js';

// The provider itself, for a host that fills its own provider registry (the kernel's config tests do).
export { CliProvider };

/** Registers the `cli` tool type. */
export const plugin: PluginDefinition = {
  id: 'provider-cli',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { providers: registrar.tokens.ToolProviders },
      init({ providers }, context) {
        providers.add('cli', new CliProvider(), context.pluginId);
      },
    });
  },
};

export default plugin;
