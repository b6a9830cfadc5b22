import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { FactorlyError, messageOf } from '@factorly/error-kit';
import { acquireFileLock } from '@factorly/process-kit/file-lock';
import type { OAuthClient, OAuthLoginOptions, OAuthProviderStatus, SecretScope } from 'factorly';
import { AuthorizationServers, requestOptions } from './authorization-server.js';
import { listenForCallback } from './callback-server.js';
import { readProviders, type OAuthProviderSpec } from './providers.js';
import { bundleOf, expiresSoon, type TokenBundle } from './token-bundle.js';
import type { StoredTokens, TokenStore } from './token-store.js';

const LOGIN_TIMEOUT_MS = 120_000;

interface Attached {
  store: TokenStore;
  secrets: SecretScope;
  stateDir: string;
}

/** OAuth 2.0 for every tool source: one token store, one refresh lock per provider across processes. */
export class PluginOAuthClient implements OAuthClient {
  private providers = new Map<string, OAuthProviderSpec>();
  private readonly servers = new AuthorizationServers();
  private parts: Attached | undefined;

  attach(parts: Attached): void {
    this.parts = parts;
  }

  configure(block: unknown): void {
    this.providers = readProviders(block);
  }

  names(): string[] {
    return [...this.providers.keys()].sort();
  }

  async status(name: string): Promise<OAuthProviderStatus> {
    const spec = this.spec(name);
    return statusOf(spec, await this.attached().store.read(spec));
  }

  async login(name: string, options: OAuthLoginOptions): Promise<OAuthProviderStatus> {
    const spec = this.spec(name);
    const server = await this.servers.of(spec);
    if (!server.authorization_endpoint)
      throw authFailed(spec, 'its authorization server names no authorization endpoint');
    const { client, auth } = await this.clientOf(spec);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await listenForCallback(
      spec.redirectPort,
      state,
      options.timeoutMs ?? LOGIN_TIMEOUT_MS,
      options.signal,
    );
    try {
      const url = authorizationUrl(server.authorization_endpoint, spec, client.client_id, callback.redirectUri, {
        state,
        challenge: await oauth.calculatePKCECodeChallenge(verifier),
      });
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
          {
            ...requestOptions(server.token_endpoint ?? url.href),
            ...resourceOf(spec),
          },
        );
        return bundleOf(await oauth.processAuthorizationCodeResponse(server, client, response));
      });
      await this.attached().store.write(spec, bundle);
      return statusOf(spec, { bundle });
    } finally {
      callback.close();
    }
  }

  async refresh(name: string): Promise<OAuthProviderStatus> {
    const spec = this.spec(name);
    const stored = await this.attached().store.read(spec);
    const bundle = await this.renew(spec, usable(spec, stored).access_token);
    return statusOf(spec, { bundle });
  }

  async logout(name: string): Promise<boolean> {
    return this.attached().store.remove(this.spec(name));
  }

  async accessToken(name: string, options: { refresh?: boolean } = {}): Promise<string> {
    const spec = this.spec(name);
    const bundle = usable(spec, await this.attached().store.read(spec));
    if (!options.refresh && !expiresSoon(bundle)) return bundle.access_token;
    return (await this.renew(spec, bundle.access_token)).access_token;
  }

  /**
   * A new access token, under the provider's lock: refresh tokens rotate, so two processes must not
   * spend the same one. Whoever waited re-reads the bundle first and uses the one the holder stored.
   */
  private async renew(spec: OAuthProviderSpec, refused: string): Promise<TokenBundle> {
    const { store, stateDir } = this.attached();
    const lock = await acquireFileLock(join(stateDir, `oauth-${spec.name}`), { staleMs: 15_000, waitMs: 30_000 }).catch(
      (error: unknown) => {
        throw authFailed(spec, `another factorly process holds its refresh lock (${messageOf(error)})`);
      },
    );
    try {
      const current = usable(spec, await store.read(spec));
      if (current.access_token !== refused && !expiresSoon(current)) return current;
      if (!current.refresh_token) throw loginRequired(spec, 'its access token expired and no refresh token is stored');
      const fresh = await this.refreshGrant(spec, current);
      await store.write(spec, fresh);
      return fresh;
    } finally {
      await lock.release();
    }
  }

  private async refreshGrant(spec: OAuthProviderSpec, bundle: TokenBundle): Promise<TokenBundle> {
    const server = await this.servers.of(spec);
    const { client, auth } = await this.clientOf(spec);
    return guarded(spec, 'refreshing its token', async () => {
      const response = await oauth.refreshTokenGrantRequest(server, client, auth, bundle.refresh_token as string, {
        ...requestOptions(server.token_endpoint ?? spec.tokenUrl ?? ''),
        ...resourceOf(spec),
      });
      return bundleOf(await oauth.processRefreshTokenResponse(server, client, response), bundle);
    });
  }

  private async clientOf(spec: OAuthProviderSpec): Promise<{ client: oauth.Client; auth: oauth.ClientAuth }> {
    const { secrets } = this.attached();
    const client: oauth.Client = { client_id: await secrets.resolve(spec.clientId) };
    const secret = spec.clientSecret === undefined ? undefined : await secrets.resolve(spec.clientSecret);
    return { client, auth: secret ? oauth.ClientSecretPost(secret) : oauth.None() };
  }

  private spec(name: string): OAuthProviderSpec {
    const spec = this.providers.get(name);
    if (spec) return spec;
    const known = this.names().join(', ') || 'none configured';
    throw new FactorlyError('USAGE', `no OAuth provider "${name}" in oauth_providers (${known})`);
  }

  private attached(): Attached {
    if (!this.parts) throw new FactorlyError('LIFECYCLE', 'the oauth plugin is used before its init ran');
    return this.parts;
  }
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

function usable(spec: OAuthProviderSpec, stored: StoredTokens): TokenBundle {
  if ('bundle' in stored) return stored.bundle;
  throw loginRequired(
    spec,
    'missing' in stored ? 'not logged in' : `the stored ${spec.tokenKey} is not a token bundle`,
  );
}

function statusOf(spec: OAuthProviderSpec, stored: StoredTokens): OAuthProviderStatus {
  const base = { name: spec.name, storedAs: `${spec.backend}:${spec.tokenKey}`, scopes: spec.scopes };
  if ('missing' in stored) return { ...base, state: 'not_authenticated', refreshable: false };
  if ('invalid' in stored) return { ...base, state: 'invalid', refreshable: false };
  const { bundle } = stored;
  const expired = bundle.expires_at !== undefined && bundle.expires_at <= Date.now();
  return {
    ...base,
    state: expired ? 'expired' : 'valid',
    refreshable: bundle.refresh_token !== undefined,
    ...(bundle.expires_at === undefined ? {} : { expiresAt: bundle.expires_at }),
  };
}

/** Runs one exchange with the authorization server; its refusal becomes an error saying what to run. */
async function guarded<T>(spec: OAuthProviderSpec, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    throw authFailed(spec, `${what} failed: ${describe(error)}`, error);
  }
}

function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError)
    return [error.error, error.error_description].filter(Boolean).join(': ');
  return messageOf(error);
}

function loginRequired(spec: OAuthProviderSpec, why: string): FactorlyError {
  return new FactorlyError(
    'AUTH_REQUIRED',
    `OAuth provider "${spec.name}": ${why} (run: factorly auth login ${spec.name})`,
  );
}

function authFailed(spec: OAuthProviderSpec, why: string, cause?: unknown): FactorlyError {
  return new FactorlyError(
    'AUTH_FAILED',
    `OAuth provider "${spec.name}": ${why} (run: factorly auth login ${spec.name})`,
    {
      cause,
    },
  );
}
