import { ShadowTokens } from '@factorly/plugin-shadow/api';
import type { ConfigBlock, PluginDefinition } from 'factorly';
import { BuiltinProvider } from './builtin-provider.js';

const names = (what: string): ConfigBlock => ({
  schema: { type: 'array', items: { type: 'string', minLength: 1 }, description: `a list of ${what}` },
});

/**
 * Registers the `builtin` tool type and the `factorly.*` tools as a tool source (`factorly.help` reads
 * the live catalogue and the shadow policies; `factorly.ask` asks through the kernel's AskPerson). Its config: the
 * top-level `disable_builtins: true` / `disabled_builtins: [names]`, and per tool the guards'
 * exceptions `shadow.allow_urls` (factorly.fetch), `allow_patterns` (shell) and `allow_paths` (file).
 */
export const plugin: PluginDefinition = {
  id: 'builtins',
  apiVersion: '1',
  config: {
    settings: { disable_builtins: { schema: { type: 'boolean' } }, disabled_builtins: names('built-in tool names') },
    shadow: { allow_urls: names('URLs'), allow_patterns: names('regular expressions'), allow_paths: names('paths') },
  },
  register(registrar) {
    registrar.registerInit({
      deps: {
        providers: registrar.tokens.ToolProviders,
        sources: registrar.tokens.ToolSources,
        paths: registrar.tokens.ProjectPaths,
        people: registrar.tokens.AskPerson,
        gateway: registrar.tokens.CallGateway,
        policies: registrar.optional(ShadowTokens.Policies),
      },
      init({ providers, sources, paths, people, gateway, policies }, context) {
        const help = { tools: (sessionId?: string) => gateway.tools(sessionId), policies };
        const builtins = new BuiltinProvider(paths, { people, help });
        providers.add('builtin', builtins, context.pluginId);
        sources.add(builtins, context.pluginId);
      },
    });
  },
};

export default plugin;
