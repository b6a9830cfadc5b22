import { McpTokens } from '@factorly/plugin-interface-mcp/api';
import { OAuthTokens } from '@factorly/plugin-oauth/api';
import type { PluginDefinition } from 'factorly';
import { UpstreamForwarding } from './forwarding.js';
import { McpProvider } from './mcp-provider.js';
import { Scrubber } from './scrubber.js';
import { httpUpstreams } from './mcp-spec.js';
import { Sessions } from './sessions.js';

/**
 * Registers the `mcp` tool type (upstream MCP servers) and the pass-through of their resources,
 * prompts, completions and log level to MCP interfaces; HTTP servers log in through the oauth
 * plugin when it is installed. A session's upstream connections, and the
 * tools they listed for it, go when the interface closes the session through the pass-through
 * (`closeSession`); the kernel stops the provider, and so every server, when it stops.
 */
export const plugin: PluginDefinition = {
  id: 'provider-mcp',
  apiVersion: '1',
  register(registrar) {
    const { tokens } = registrar;
    registrar.registerInit({
      deps: {
        providers: tokens.ToolProviders,
        connectionSecrets: tokens.ConnectionSecrets,
        passthroughs: registrar.optional(McpTokens.Passthroughs),
        log: tokens.LazyEventLog,
        processors: tokens.OutputProcessors,
        catalog: tokens.ToolCatalog,
        listeners: tokens.ConfigListeners,
        logins: registrar.optional(OAuthTokens.Upstreams),
      },
      init({ providers, connectionSecrets, passthroughs, log, processors, catalog, listeners, logins }, context) {
        const scrubber = new Scrubber(() => processors.list(), connectionSecrets);
        const sessions = new Sessions(
          async (data) => void (await log().append([{ type: 'mcp.forwarded', data }])),
          scrubber,
        );
        const provider = new McpProvider(connectionSecrets, sessions, catalog, logins);
        const forwarding = new UpstreamForwarding(
          () => provider.all(),
          sessions,
          catalog,
          (session) => provider.serving(session),
        );
        // The HTTP servers' logins live in the oauth plugin's store: it learns them at every config load.
        if (logins)
          listeners.add(
            {
              name: 'mcp.upstream-logins',
              order: 10,
              configLoaded: (config) => logins.declare(httpUpstreams(config.tools)),
            },
            context.pluginId,
          );
        providers.add('mcp', provider, context.pluginId);
        // Served next to the tools when the MCP interface is installed.
        passthroughs?.add('mcp', forwarding, context.pluginId);
      },
    });
  },
};

export default plugin;
