import type { PluginDefinition } from 'factorly';
import { codeBuiltin } from './builtin.js';
import { CodeProvider } from './code-provider.js';
import { readDefaultEngine } from './code-spec.js';

/**
 * Registers the `code` tool type and the `factorly.code` builtin. Engines come from engine plugins.
 * Its config: the `defaults: {engine}` block (the project's script engine) and the shared
 * `disable_builtins` / `disabled_builtins`, which can turn `factorly.code` off.
 */
export const plugin: PluginDefinition = {
  id: 'provider-code',
  apiVersion: '1',
  config: {
    key: 'defaults',
    schema: {
      type: 'object',
      description: 'a mapping such as {engine: ses}',
      properties: { engine: { type: 'string' } },
      additionalProperties: false,
    },
    settings: {
      disable_builtins: { schema: { type: 'boolean' } },
      disabled_builtins: {
        schema: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          description: 'a list of built-in tool names',
        },
      },
    },
  },
  register(registrar) {
    const { ToolProviders, ToolSources, SandboxEngines, CallGateway, ConfigListeners } = registrar.tokens;
    registrar.registerInit({
      deps: {
        providers: ToolProviders,
        sources: ToolSources,
        engines: SandboxEngines,
        gateway: CallGateway,
        listeners: ConfigListeners,
      },
      init({ providers, sources, engines, gateway, listeners }, context) {
        const warn = (message: string): void => void process.stderr.write(`factorly: ${message}\n`);
        const provider = new CodeProvider(engines, gateway, warn);
        providers.add('code', provider, context.pluginId);
        sources.add(codeBuiltin, context.pluginId);
        // `defaults: {engine: ses}`: the engine of every script whose tool does not name one (read again on reload).
        listeners.add(
          {
            name: 'code defaults',
            configLoaded: () => provider.useProjectEngine(readDefaultEngine(context.config, engines.keys())),
          },
          context.pluginId,
        );
      },
    });
  },
};

export default plugin;
