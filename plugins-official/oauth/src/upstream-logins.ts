import { randomBytes } from 'node:crypto';
import type { OAuthLoginOptions, OAuthProviderStatus } from 'factorly';
import { FactorlyError, messageOf } from '@factorly/error-kit';
import { checkAuthorizationUrl } from './authorization-probe.js';
import { boundedFetch } from './authorization-server.js';
import { listenForCallback } from './callback-server.js';
import { authFailed, guarded, loginRequired, statusOf, usable } from './login-errors.js';
import { LoginAuthProvider, ServingAuthProvider } from './mcp-auth-providers.js';
import type { LoginParts } from './provider-logins.js';
import { renewUnderLock } from './refresh-lock.js';
import { expiresSoon, type TokenBundle } from './token-bundle.js';
import { bundleOfSdk, checkedDiscovery, configuredClient, readRecord } from './upstream-record.js';
import { readUpstream, type UpstreamDeclaration, type UpstreamSpec } from './upstream-spec.js';

/** The MCP SDK's client auth helpers, loaded when an upstream's login or refresh needs them. */
const sdkAuth = () => import('@modelcontextprotocol/sdk/client/auth.js');

/**
 * The logins of upstream MCP servers reached over HTTP (MCP authorization): the MCP SDK's `auth()`
 * discovers from the server's 401 (RFC 9728, then RFC 8414 / OIDC), registers a client (RFC 7591)
 * unless one is configured, runs PKCE with the `resource` parameter (RFC 8707); the tokens go to the
 * same store, and are refreshed under the same lock, as a provider's.
 */
export class UpstreamLogins {
  private specs = new Map<string, UpstreamSpec>();
  private readonly serving = new Map<string, { spec: UpstreamSpec; provider: ServingAuthProvider }>();

  constructor(private readonly parts: () => LoginParts) {}

  /** The config's HTTP upstreams (at every load); a name `oauth_providers` has too is a config error. */
  declare(upstreams: readonly UpstreamDeclaration[], providers: readonly string[]): void {
    const clash = upstreams.filter((upstream) => providers.includes(upstream.name)).map((upstream) => upstream.name);
    if (clash.length > 0)
      throw new FactorlyError(
        'CONFIG_INVALID',
        `${clash.map((name) => `"${name}"`).join(', ')} names both an OAuth provider (oauth_providers) and an upstream MCP server (tools): \`factorly auth login ${clash[0]}\` could mean either; rename one`,
      );
    this.specs = new Map(upstreams.map((upstream) => [upstream.name, readUpstream(upstream)]));
  }

  names(): string[] {
    return [...this.specs.keys()].sort();
  }

  has(name: string): boolean {
    return this.specs.has(name);
  }

  async status(name: string): Promise<OAuthProviderStatus> {
    const spec = this.spec(name);
    return statusOf(spec, await this.parts().store.read(spec));
  }

  /** The SDK's auth provider for the upstream's transport (the same one while its entry is unchanged). */
  authProvider(name: string): ServingAuthProvider {
    const spec = this.spec(name);
    const kept = this.serving.get(name);
    if (kept && JSON.stringify(kept.spec) === JSON.stringify(spec)) return kept.provider;
    const provider = new ServingAuthProvider(spec, { ...this.parts(), renew: (s, refused) => this.renew(s, refused) });
    this.serving.set(name, { spec, provider });
    return provider;
  }

  async login(name: string, options: OAuthLoginOptions): Promise<OAuthProviderStatus> {
    const spec = this.spec(name);
    const parts = this.parts();
    const state = randomBytes(24).toString('base64url');
    const callback = await listenForCallback(spec.redirectPort, state, options);
    try {
      const serverUrl = await parts.secrets.resolve(spec.url);
      const challenge = await this.challenge(spec, serverUrl);
      // A client the server forgot (its store reset) is registered again instead of waited on.
      const provider = new LoginAuthProvider(spec, parts, callback.redirectUri, state, async (url) => {
        await checkAuthorizationUrl(url, spec, { registered: spec.clientId === undefined, fetchFn: boundedFetch });
        await options.open(url.href);
      });
      const { auth } = await sdkAuth();
      const start = { serverUrl, ...challenge, fetchFn: boundedFetch };
      const started = await guarded(spec, 'starting the login', () => auth(provider, start));
      if (started === 'AUTHORIZED') return await this.status(name);
      const query = await callback.result;
      const refused = query.get('error');
      if (refused !== null)
        throw authFailed(
          spec,
          `the authorization server refused: ${[refused, query.get('error_description')].filter(Boolean).join(': ')}`,
        );
      const code = query.get('code');
      if (!code) throw authFailed(spec, 'the authorization server sent no code back');
      await guarded(spec, 'login', () => auth(provider, { ...start, authorizationCode: code }));
      return await this.status(name);
    } finally {
      callback.close();
    }
  }

  async refresh(name: string): Promise<OAuthProviderStatus> {
    const spec = this.spec(name);
    const bundle = await this.renew(spec, usable(spec, await this.parts().store.read(spec)).access_token);
    return statusOf(spec, { bundle });
  }

  async logout(name: string): Promise<boolean> {
    return this.parts().store.remove(this.spec(name));
  }

  async accessToken(name: string, options: { refresh?: boolean } = {}): Promise<string> {
    const spec = this.spec(name);
    const bundle = usable(spec, await this.parts().store.read(spec));
    if (!options.refresh && !expiresSoon(bundle)) return bundle.access_token;
    return (await this.renew(spec, bundle.access_token)).access_token;
  }

  /** The refresh grant through the SDK (`refreshAuthorization`), with the client and discovery the login kept, under the lock. */
  renew(spec: UpstreamSpec, refused: string): Promise<TokenBundle> {
    const parts = this.parts();
    return renewUnderLock(parts, spec, refused, async (current) => {
      const record = await readRecord(parts, spec);
      const client = (await configuredClient(parts, spec)) ?? record.client;
      const { discoverOAuthServerInfo, refreshAuthorization } = await sdkAuth();
      const serverUrl = await parts.secrets.resolve(spec.url);
      const discovery = checkedDiscovery(
        spec,
        record.discovery ??
          (await guarded(spec, 'discovery', () => discoverOAuthServerInfo(serverUrl, { fetchFn: boundedFetch }))),
      );
      if (!client) throw loginRequired(spec, 'no client is registered with its authorization server');
      const resource = discovery.resourceMetadata?.resource;
      const tokens = await guarded(spec, 'refreshing its token', () =>
        refreshAuthorization(discovery.authorizationServerUrl, {
          metadata: discovery.authorizationServerMetadata,
          clientInformation: client,
          refreshToken: current.refresh_token,
          ...(resource === undefined ? {} : { resource }),
          fetchFn: boundedFetch,
        }),
      );
      return bundleOfSdk(tokens, current);
    });
  }

  /** What the server's 401 says about its authorization (RFC 9728 `resource_metadata`, `scope`); the configured scopes win. */
  private async challenge(
    spec: UpstreamSpec,
    serverUrl: string,
  ): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    const { extractWWWAuthenticateParams } = await sdkAuth();
    const headers = Object.fromEntries(
      await Promise.all(
        Object.entries(spec.headers).map(async ([k, v]) => [k, await this.parts().secrets.resolve(v)] as const),
      ),
    );
    let response: Response;
    try {
      response = await boundedFetch(serverUrl, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(INITIALIZE),
      });
    } catch (error) {
      throw authFailed(spec, `could not reach ${spec.url} (${messageOf(error)})`, error);
    }
    await response.body?.cancel().catch(() => undefined);
    const found = response.status === 401 ? extractWWWAuthenticateParams(response) : {};
    const scope = spec.scopes.length > 0 ? spec.scopes.join(' ') : found.scope;
    return {
      ...(found.resourceMetadataUrl ? { resourceMetadataUrl: found.resourceMetadataUrl } : {}),
      ...(scope ? { scope } : {}),
    };
  }

  private spec(name: string): UpstreamSpec {
    const spec = this.specs.get(name);
    if (!spec) throw new FactorlyError('USAGE', `no upstream MCP server "${name}" with a url in tools`);
    return spec;
  }
}

/** The request a login probes the server with: the one an agent's first connection sends. */
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'factorly', version: '0.1.0' } },
};
