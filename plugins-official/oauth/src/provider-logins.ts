import * as oauth from 'oauth4webapi';
import type { OAuthLoginOptions, OAuthProviderStatus, SecretScope } from 'factorly';
import { checkAuthorizationUrl } from './authorization-probe.js';
import { AuthorizationServers, boundedFetch, requestOptions } from './authorization-server.js';
import { listenForCallback } from './callback-server.js';
import { authFailed, guarded, statusOf, usable } from './login-errors.js';
import type { OAuthProviderSpec } from './providers.js';
import { renewUnderLock } from './refresh-lock.js';
import { bundleOf, expiresSoon, type TokenBundle } from './token-bundle.js';
import type { TokenStore } from './token-store.js';

/** What every kind of login shares once the plugin's init ran. */
export interface LoginParts {
  store: TokenStore;
  secrets: SecretScope;
  stateDir: string;
}

/**
 * The logins of `oauth_providers` (REST tools): discovery or configured endpoints, PKCE login on a
 * loopback callback and the refresh grant, all through `oauth4webapi`.
 */
export class ProviderLogins {
  private readonly servers = new AuthorizationServers();

  constructor(private readonly parts: () => LoginParts) {}

  async status(spec: OAuthProviderSpec): Promise<OAuthProviderStatus> {
    return statusOf(placeOf(spec), await this.parts().store.read(spec));
  }

  async login(spec: OAuthProviderSpec, options: OAuthLoginOptions): Promise<OAuthProviderStatus> {
    const server = await this.servers.of(spec);
    if (!server.authorization_endpoint)
      throw authFailed(spec, 'its authorization server names no authorization endpoint');
    const { client, auth } = await this.clientOf(spec);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await listenForCallback(spec.redirectPort, state, options);
    try {
      const url = authorizationUrl(server.authorization_endpoint, spec, client.client_id, callback.redirectUri, {
        state,
        challenge: await oauth.calculatePKCECodeChallenge(verifier),
      });
      // A client_id or redirect the server refuses ends the login now, in the server's words.
      await checkAuthorizationUrl(url, placeOf(spec), { registered: false, fetchFn: boundedFetch });
      await options.open(url.href);
      const query = await callback.result;
      const bundle = await guarded(spec, 'login', async () => {
        const params = oauth.validateAuthResponse(server, client, query, state);
        const response = await oauth.authorizationCodeGrantRequest(
          server,
          client,
          auth,
          params,
          callback.redirectUri,
          verifier,
          { ...requestOptions(server.token_endpoint ?? url.href), ...resourceOf(spec) },
        );
        return bundleOf(await oauth.processAuthorizationCodeResponse(server, client, response));
      });
      await this.parts().store.write(spec, bundle);
      return statusOf(placeOf(spec), { bundle });
    } finally {
      callback.close();
    }
  }

  async refresh(spec: OAuthProviderSpec): Promise<OAuthProviderStatus> {
    const stored = await this.parts().store.read(spec);
    const bundle = await this.renew(spec, usable(spec, stored).access_token);
    return statusOf(placeOf(spec), { bundle });
  }

  async accessToken(spec: OAuthProviderSpec, options: { refresh?: boolean } = {}): Promise<string> {
    const bundle = usable(spec, await this.parts().store.read(spec));
    if (!options.refresh && !expiresSoon(bundle)) return bundle.access_token;
    return (await this.renew(spec, bundle.access_token)).access_token;
  }

  private renew(spec: OAuthProviderSpec, refused: string): Promise<TokenBundle> {
    return renewUnderLock(this.parts(), spec, refused, async (current) => {
      const server = await this.servers.of(spec);
      const { client, auth } = await this.clientOf(spec);
      return guarded(spec, 'refreshing its token', async () => {
        const response = await oauth.refreshTokenGrantRequest(server, client, auth, current.refresh_token, {
          ...requestOptions(server.token_endpoint ?? spec.tokenUrl ?? ''),
          ...resourceOf(spec),
        });
        return bundleOf(await oauth.processRefreshTokenResponse(server, client, response), current);
      });
    });
  }

  private async clientOf(spec: OAuthProviderSpec): Promise<{ client: oauth.Client; auth: oauth.ClientAuth }> {
    const { secrets } = this.parts();
    const client: oauth.Client = { client_id: await secrets.resolve(spec.clientId) };
    const secret = spec.clientSecret === undefined ? undefined : await secrets.resolve(spec.clientSecret);
    return { client, auth: secret ? oauth.ClientSecretPost(secret) : oauth.None() };
  }
}

function placeOf(spec: OAuthProviderSpec) {
  return { ...spec, kind: 'provider' as const };
}

function authorizationUrl(
  endpoint: string,
  spec: OAuthProviderSpec,
  clientId: string,
  redirectUri: string,
  pkce: { state: string; challenge: string },
): URL {
  const url = new URL(endpoint);
  const query = url.searchParams;
  query.set('response_type', 'code');
  query.set('client_id', clientId);
  query.set('redirect_uri', redirectUri);
  query.set('code_challenge', pkce.challenge);
  query.set('code_challenge_method', 'S256');
  query.set('state', pkce.state);
  if (spec.scopes.length > 0) query.set('scope', spec.scopes.join(' '));
  if (spec.resource) query.set('resource', spec.resource);
  return url;
}

function resourceOf(spec: OAuthProviderSpec): { additionalParameters?: Record<string, string> } {
  return spec.resource ? { additionalParameters: { resource: spec.resource } } : {};
}
