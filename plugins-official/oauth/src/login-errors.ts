import * as oauth from 'oauth4webapi';
import { FactorlyError, messageOf } from '@factorly/error-kit';
import type { OAuthLoginKind, OAuthProviderStatus } from 'factorly';
import type { StoredTokens, TokenPlace } from './token-store.js';
import type { TokenBundle } from './token-bundle.js';

/** How messages name a login: `OAuth provider "github"`, `upstream MCP server "notion"`. */
export function named(place: TokenPlace & { kind?: OAuthLoginKind }): string {
  return place.kind === 'upstream' ? `upstream MCP server "${place.name}"` : `OAuth provider "${place.name}"`;
}

export function loginRequired(place: TokenPlace & { kind?: OAuthLoginKind }, why: string): FactorlyError {
  return new FactorlyError('AUTH_REQUIRED', `${named(place)}: ${why} (run: factorly auth login ${place.name})`);
}

export function authFailed(place: TokenPlace & { kind?: OAuthLoginKind }, why: string, cause?: unknown): FactorlyError {
  return new FactorlyError('AUTH_FAILED', `${named(place)}: ${why} (run: factorly auth login ${place.name})`, {
    cause,
  });
}

/** Runs one exchange with the authorization server; its refusal becomes an error saying what to run. */
export async function guarded<T>(place: TokenPlace, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    throw authFailed(place, `${what} failed: ${describe(error)}`, error);
  }
}

function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError)
    return [error.error, error.error_description].filter(Boolean).join(': ');
  return messageOf(error);
}

/** The stored bundle, or the error saying why there is none to use. */
export function usable(place: TokenPlace, stored: StoredTokens): TokenBundle {
  if ('bundle' in stored) return stored.bundle;
  throw loginRequired(
    place,
    'missing' in stored ? 'not logged in' : `the stored ${place.tokenKey} is not a token bundle`,
  );
}

/** Where a login stands, as `factorly auth status` and the web UI show it (never a token). */
export function statusOf(
  place: TokenPlace & { kind: OAuthLoginKind; scopes: string[]; url?: string },
  stored: StoredTokens,
): OAuthProviderStatus {
  const base = {
    name: place.name,
    kind: place.kind,
    storedAs: `${place.backend}:${place.tokenKey}`,
    scopes: place.scopes,
    ...(place.url === undefined ? {} : { url: place.url }),
  };
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
