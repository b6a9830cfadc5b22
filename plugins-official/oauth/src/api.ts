// The public API of the oauth plugin (`@factorly/plugin-oauth/api`): the client it provides, whose
// contract the SDK holds (the host's `factorly auth` commands use it too). Types and the token only:
// the token is spelled as `createToken('oauth.client')` makes it, so importing it loads no SDK code.
import type { OAuthClient, Token } from 'factorly';

export type { OAuthClient, OAuthLoginOptions, OAuthProviderStatus, OAuthState } from 'factorly';

export const OAuthTokens = {
  Client: Symbol.for('factorly:oauth.client') as Token<OAuthClient>,
};
