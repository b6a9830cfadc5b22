import type { PluginDefinition } from 'factorly';
import { OAuthTokens, type OAuthUpstreams } from './api.js';
import { OAuthBackend } from './oauth-backend.js';
import { PluginOAuthClient } from './oauth-client.js';
import { PROVIDERS_SCHEMA } from './providers.js';
import { TokenStore } from './token-store.js';
import { upstreamOAuthProblems } from './upstream-spec.js';

/**
 * OAuth 2.0 for tools: the config's `oauth_providers`, PKCE login on a loopback callback
 * (`factorly auth login`), tokens kept as one secret in a writable backend and refreshed under a
 * cross-process lock, served as the `oauth` secret backend (`{{oauth:github}}`; a rest tool's
 * `auth: {type: oauth, provider: github}`), and the same logins for upstream MCP servers reached
 * over HTTP, through the MCP SDK's `authProvider` (`OAuthTokens.Upstreams`).
 */
export const plugin: PluginDefinition = {
  id: 'oauth',
  apiVersion: '1',
  config: { key: 'oauth_providers', schema: PROVIDERS_SCHEMA, merge: 'by-name' },
  register(registrar) {
    const client = new PluginOAuthClient();
    registrar.provide(OAuthTokens.Client, client);
    const upstreams: OAuthUpstreams = {
      check: (block) => upstreamOAuthProblems(block),
      declare: (declared) => client.declareUpstreams(declared),
      authProvider: (name) => client.upstreams.authProvider(name),
      login: (name, options) => client.upstreams.login(name, options),
    };
    registrar.provide(OAuthTokens.Upstreams, upstreams);
    const { tokens } = registrar;
    registrar.registerInit({
      deps: {
        backends: tokens.SecretBackends,
        secrets: tokens.ConnectionSecrets,
        paths: tokens.ProjectPaths,
        listeners: tokens.ConfigListeners,
      },
      init({ backends, secrets, paths, listeners }, context) {
        client.attach({ store: new TokenStore(backends), secrets, stateDir: paths.stateDir });
        backends.add('oauth', new OAuthBackend(client), context.pluginId);
        // Before the provider of `type: mcp` declares its upstreams (its listener's order is later).
        listeners.add(
          {
            name: 'oauth.providers',
            order: -10,
            configLoaded: (config) => client.configure(config.settings.oauth_providers),
          },
          context.pluginId,
        );
      },
    });
  },
};

export default plugin;
