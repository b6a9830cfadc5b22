import { createToken } from '../base/token.js';

// OAuth logins for tool sources, as the host's commands and the web UI use them (`factorly auth`):
// the oauth plugin provides the client under `OAuthTokens.Client`; tools reach its tokens as the
// `oauth` secret backend, upstream MCP servers through the MCP SDK's `authProvider`.

/** Where a provider's login stands. */
export type OAuthState = 'valid' | 'expired' | 'not_authenticated' | 'invalid';

/** What a login is for: a provider of `oauth_providers`, or an upstream MCP server reached over HTTP. */
export type OAuthLoginKind = 'provider' | 'upstream';

export interface OAuthProviderStatus {
  name: string;
  kind: OAuthLoginKind;
  /** An upstream's URL (the MCP server the login is for). */
  url?: string;
  state: OAuthState;
  /** When the access token expires (ms since the epoch); absent when it has no lifetime. */
  expiresAt?: number;
  /** A refresh token is stored: an expired access token is renewed without a new login. */
  refreshable: boolean;
  /** Where the tokens live, as a reference (`<backend>:<provider>_oauth`): never the tokens. */
  storedAs: string;
  scopes: string[];
}

export interface OAuthLoginOptions {
  /** Shows the person the authorization URL (opens a browser, prints it). */
  open(url: string): void | Promise<void>;
  /** How long to wait for the callback (2 minutes). */
  timeoutMs?: number;
  /**
   * Where the browser goes once the authorization server's redirect has reached factorly (a page of
   * the web UI), instead of a page telling the person to close the tab.
   */
  returnTo?: string;
  signal?: AbortSignal;
}

export interface OAuthClient {
  /** Every login the config makes possible, by name: the providers, then the upstream MCP servers reached over HTTP. */
  names(): string[];
  status(name: string): Promise<OAuthProviderStatus>;
  /** PKCE login through a loopback callback; stores the tokens. */
  login(name: string, options: OAuthLoginOptions): Promise<OAuthProviderStatus>;
  /** Renews the access token now with the stored refresh token. */
  refresh(name: string): Promise<OAuthProviderStatus>;
  /** Removes the stored tokens; whether there were any. */
  logout(name: string): Promise<boolean>;
  /** A usable access token: refreshed first when it expires within 30 s, or when `refresh` is set. */
  accessToken(name: string, options?: { refresh?: boolean }): Promise<string>;
}

export const OAuthTokens = {
  Client: createToken<OAuthClient>('oauth.client'),
} as const;
