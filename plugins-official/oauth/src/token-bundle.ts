import type { TokenEndpointResponse } from 'oauth4webapi';

/** What a login stores as one secret: the tokens and when the access token expires. */
export interface TokenBundle {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  /** Milliseconds since the epoch; absent: the provider gave no lifetime (treated as not expiring). */
  expires_at?: number;
  /** When the token endpoint answered (ms since the epoch): the token's lifetime sets how early it is renewed. */
  obtained_at?: number;
  scope?: string;
  /** The authorization server that issued them (upstream MCP servers: the MCP SDK binds tokens to it). */
  issuer?: string;
}

/** A token this close to its expiry is refreshed before use (the reference's 30 s; half its lifetime when shorter). */
export const REFRESH_MARGIN_MS = 30_000;

/** The bundle a token response makes; a response without a new refresh token keeps the old one. */
export function bundleOf(response: TokenEndpointResponse, previous?: TokenBundle, now = Date.now()): TokenBundle {
  const bundle: TokenBundle = { access_token: response.access_token, token_type: response.token_type };
  const refresh = response.refresh_token ?? previous?.refresh_token;
  if (refresh !== undefined) bundle.refresh_token = refresh;
  if (typeof response.expires_in === 'number') {
    bundle.expires_at = now + response.expires_in * 1000;
    bundle.obtained_at = now;
  }
  const scope = response.scope ?? previous?.scope;
  if (scope !== undefined) bundle.scope = scope;
  return bundle;
}

/** A stored JSON object read back; undefined when the text is not one (damaged, or written by hand). */
export function parseRecord(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The stored text read back; undefined when it is not a bundle (damaged, or written by hand). */
export function parseBundle(text: string): TokenBundle | undefined {
  const bundle = parseRecord(text) as Partial<TokenBundle> | undefined;
  if (!bundle) return undefined;
  if (typeof bundle.access_token !== 'string' || bundle.access_token === '') return undefined;
  if (bundle.expires_at !== undefined && typeof bundle.expires_at !== 'number') return undefined;
  if (bundle.refresh_token !== undefined && typeof bundle.refresh_token !== 'string') return undefined;
  return { ...bundle, token_type: typeof bundle.token_type === 'string' ? bundle.token_type : 'bearer' } as TokenBundle;
}

export function expiresSoon(bundle: TokenBundle, now = Date.now()): boolean {
  if (bundle.expires_at === undefined) return false;
  const lifetime = bundle.obtained_at === undefined ? Infinity : bundle.expires_at - bundle.obtained_at;
  return bundle.expires_at - Math.min(REFRESH_MARGIN_MS, lifetime / 2) <= now;
}
