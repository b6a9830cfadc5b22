import type { OAuthClient, SecretBackend, SecretResolveOptions } from 'factorly';

/**
 * `{{oauth:<provider>}}`: a usable access token, refreshed first when it is about to expire, or when
 * the far side refused the last one (`refresh`). Tokens are hydrated at the last hop and scrubbed
 * like any secret; an agent can never name one (not hydratable).
 */
export class OAuthBackend implements SecretBackend {
  readonly name = 'oauth';
  readonly readOnly = true;

  constructor(private readonly client: OAuthClient) {}

  resolve(provider: string, options: SecretResolveOptions = {}): Promise<string> {
    return this.client.accessToken(provider, { refresh: options.refresh === true });
  }
}
