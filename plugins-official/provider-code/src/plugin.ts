import type { PluginDefinition } from 'factorly';
import { codeBuiltin } from './builtin.js';
import { CodeProvider } from './code-provider.js';
import { readDefaultEngine } from './code-spec.js';

/** Registers the `code` tool type and the `factorly.code` builtin. Engines come from engine plugins. */
export const plugin: PluginDefinition = {
  id: 'provider-code',
  apiVersion: '1',
  register(registrar) {
    const { ToolProviders, ToolSources, SandboxEngines, CallGateway, ConfigListeners } = registrar.tokens;
    registrar.registerInit({
      deps: { providers: ToolProviders, sources: ToolSources, engines: SandboxEngines, gateway: CallGateway, listeners: ConfigListeners },
      init({ providers, sources, engines, gateway, listeners }, context) {
        const warn = (message: string): void => void process.stderr.write(`factorly: ${message}\n`);
        const provider = new CodeProvider(engines, gateway, warn);
        providers.add('code', provider, context.pluginId);
        sources.add(codeBuiltin, context.pluginId);
        // `defaults: {engine: ses}`: the engine of every script whose tool does not name one (read again on reload).
        listeners.add({ name: 'code defaults', configLoaded: (config) => provider.useProjectEngine(readDefaultEngine(config.settings, engines.keys())) }, context.pluginId);
      },
    });
  },
};

export default plugin;
