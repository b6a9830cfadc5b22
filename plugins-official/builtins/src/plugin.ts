import type { PluginDefinition } from 'factorly';
import { BuiltinProvider } from './builtin-provider.js';

/** Registers the `builtin` tool type and the `factorly.*` tools as a tool source. */
export const plugin: PluginDefinition = {
  id: 'builtins',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { providers: registrar.tokens.ToolProviders, sources: registrar.tokens.ToolSources, paths: registrar.tokens.ProjectPaths },
      init({ providers, sources, paths }, context) {
        const builtins = new BuiltinProvider(paths);
        providers.add('builtin', builtins, context.pluginId);
        sources.add(builtins, context.pluginId);
      },
    });
  },
};

export default plugin;
