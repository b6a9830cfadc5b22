import type { PluginDefinition } from 'factorly';
import { codeBuiltin } from './builtin.js';
import { CodeProvider } from './code-provider.js';

/** Registers the `code` tool type and the `factorly.code` builtin. Engines come from engine plugins. */
export const plugin: PluginDefinition = {
  id: 'provider-code',
  apiVersion: '1',
  register(registrar) {
    const { ToolProviders, ToolSources, SandboxEngines, CallGateway } = registrar.tokens;
    registrar.registerInit({
      deps: { providers: ToolProviders, sources: ToolSources, engines: SandboxEngines, gateway: CallGateway },
      init({ providers, sources, engines, gateway }, context) {
        const warn = (message: string): void => void process.stderr.write(`factorly: ${message}\n`);
        providers.add('code', new CodeProvider(engines, gateway, warn), context.pluginId);
        sources.add(codeBuiltin, context.pluginId);
      },
    });
  },
};

export default plugin;
