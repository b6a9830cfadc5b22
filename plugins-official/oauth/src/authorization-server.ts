import * as oauth from 'oauth4webapi';
import { FactorlyError } from '@factorly/error-kit';
import type { OAuthProviderSpec } from './providers.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Plain HTTP to this machine (a local authorization server, a test): allowed beside HTTPS. */
export function isLoopbackHttp(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname);
}

/** Every request of a login or refresh ends within 10 seconds. */
export const boundedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(10_000) });

/** Plain HTTP only to this machine (a local authorization server, a test): everything else must be HTTPS. */
export function requestOptions(url: string): { [oauth.allowInsecureRequests]?: boolean; signal: AbortSignal } {
  return {
    ...(isLoopbackHttp(url) ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: AbortSignal.timeout(10_000),
  };
}

/**
 * The provider's authorization server: discovered from its `issuer` (OpenID Connect discovery, then
 * RFC 8414), or made from the configured endpoints. Discovery is done once per process.
 */
export class AuthorizationServers {
  private readonly known = new Map<string, Promise<oauth.AuthorizationServer>>();

  of(spec: OAuthProviderSpec): Promise<oauth.AuthorizationServer> {
    let server = this.known.get(spec.name);
    if (!server) {
      server = spec.issuer ? discover(spec.name, spec.issuer) : Promise.resolve(configured(spec));
      this.known.set(spec.name, server);
      server.catch(() => this.known.delete(spec.name));
    }
    return server;
  }
}

function configured(spec: OAuthProviderSpec): oauth.AuthorizationServer {
  const authorization = spec.authUrl as string;
  return {
    issuer: new URL(authorization).origin,
    authorization_endpoint: authorization,
    token_endpoint: spec.tokenUrl as string,
  };
}

async function discover(name: string, issuer: string): Promise<oauth.AuthorizationServer> {
  const issuerUrl = new URL(issuer);
  let lastError: unknown;
  for (const algorithm of ['oidc', 'oauth2'] as const) {
    try {
      const response = await oauth.discoveryRequest(issuerUrl, { ...requestOptions(issuer), algorithm });
      return await oauth.processDiscoveryResponse(issuerUrl, response);
    } catch (error) {
      lastError = error;
    }
  }
  throw new FactorlyError(
    'AUTH_FAILED',
    `OAuth provider "${name}": could not read the metadata of issuer ${issuer} (${(lastError as Error).message})`,
    { cause: lastError },
  );
}
