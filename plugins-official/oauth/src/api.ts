// The public API of the oauth plugin (`@factorly/plugin-oauth/api`): the client it provides, whose
// contract the SDK holds (the host's `factorly auth` commands use it too), and what a provider of
// upstream MCP servers uses to put their logins in the same store. Types, tokens and constants only:
// the tokens are spelled as `createToken` makes them, so importing this file loads no code.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClient, OAuthLoginOptions, OAuthProviderStatus, Token } from 'factorly';
import type { UpstreamDeclaration } from './upstream-spec.js';

export type { OAuthClient, OAuthLoginKind, OAuthLoginOptions, OAuthProviderStatus, OAuthState } from 'factorly';
export type { UpstreamDeclaration } from './upstream-spec.js';

/** The MCP SDK's auth provider for one upstream, backed by the token store (it never starts a login itself). */
export interface UpstreamAuthProvider extends OAuthClientProvider {
  /** Changes whenever another login is stored (a running server waiting for one compares it); undefined: none. */
  loginMark(): Promise<string | undefined>;
}

/**
 * Logins of upstream MCP servers (MCP authorization), for the provider of `type: mcp`: it declares
 * its HTTP upstreams at every config load, checks their `oauth:` blocks, and gives each transport
 * its `authProvider`. The tokens share the store and refresh lock of `oauth_providers`.
 */
export interface OAuthUpstreams {
  /** What is wrong with an entry's `oauth:` block, each problem naming the key (empty: nothing). */
  check(block: unknown): string[];
  /** The config's HTTP upstreams; a name an OAuth provider has too is a config error (thrown). */
  declare(upstreams: readonly UpstreamDeclaration[]): void;
  /** The transport's `authProvider` for a declared upstream. */
  authProvider(name: string): UpstreamAuthProvider;
  /** A login through the loopback callback, the authorization URL shown by `open` (a browser, an agent's URL elicitation). */
  login(name: string, options: OAuthLoginOptions): Promise<OAuthProviderStatus>;
}

/**
 * The flag (`error.data[TOKEN_RENEWED]`) on what an upstream's transport throws when the server
 * refused its token and a new one was stored: the request can be sent once more.
 */
export const TOKEN_RENEWED = 'tokenRenewed';

export const OAuthTokens = {
  Client: Symbol.for('factorly:oauth.client') as Token<OAuthClient>,
  Upstreams: Symbol.for('factorly:oauth.upstreams') as Token<OAuthUpstreams>,
};
