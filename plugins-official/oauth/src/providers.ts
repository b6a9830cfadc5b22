import type { JsonSchema } from 'factorly';

/** One entry of the config's `oauth_providers` block, as the plugin uses it. */
export interface OAuthProviderSpec {
  name: string;
  /** May be a secret reference (`{{vault:GH_CLIENT_ID}}`), resolved when a request needs it. */
  clientId: string;
  clientSecret?: string;
  /** OIDC / RFC 8414 discovery: the endpoints come from the issuer's metadata. */
  issuer?: string;
  authUrl?: string;
  tokenUrl?: string;
  scopes: string[];
  /** RFC 8707: the resource the tokens are for, sent with every authorization and token request. */
  resource?: string;
  /** Where the token bundle lives: `<backend>:<key>` parts (default `vault`, `<name>_oauth`). */
  backend: string;
  tokenKey: string;
  /** The loopback port the login's callback listens on (18019, the reference's; another one if taken). */
  redirectPort: number;
}

export const DEFAULT_REDIRECT_PORT = 18019;

const NAME = '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$';

/** The block's schema: the loader checks it and names the line of any mistake. */
export const PROVIDERS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'a mapping of provider names to {client_id, client_secret?, issuer | auth_url + token_url, scopes?}',
  propertyNames: { pattern: NAME },
  additionalProperties: {
    type: 'object',
    required: ['client_id'],
    additionalProperties: false,
    properties: {
      client_id: { type: 'string', minLength: 1 },
      client_secret: { type: 'string', minLength: 1 },
      issuer: { type: 'string', pattern: '^https?://' },
      auth_url: { type: 'string', pattern: '^https?://' },
      token_url: { type: 'string', pattern: '^https?://' },
      scopes: { type: 'array', items: { type: 'string', minLength: 1 } },
      resource: { type: 'string', pattern: '^https?://' },
      token_backend: { type: 'string', pattern: NAME },
      token_key: { type: 'string', minLength: 1 },
      redirect_port: { type: 'integer', minimum: 1, maximum: 65535 },
    },
    anyOf: [{ required: ['issuer'] }, { required: ['auth_url', 'token_url'] }],
  },
};

/** The providers of a checked block (undefined: none configured). */
export function readProviders(block: unknown): Map<string, OAuthProviderSpec> {
  const providers = new Map<string, OAuthProviderSpec>();
  if (block === undefined || block === null) return providers;
  for (const [name, raw] of Object.entries(block as Record<string, Record<string, unknown>>)) {
    providers.set(name, {
      name,
      clientId: String(raw.client_id),
      clientSecret: optional(raw.client_secret),
      issuer: optional(raw.issuer),
      authUrl: optional(raw.auth_url),
      tokenUrl: optional(raw.token_url),
      scopes: Array.isArray(raw.scopes) ? raw.scopes.map(String) : [],
      resource: optional(raw.resource),
      backend: optional(raw.token_backend) ?? 'vault',
      tokenKey: optional(raw.token_key) ?? `${name}_oauth`,
      redirectPort: typeof raw.redirect_port === 'number' ? raw.redirect_port : DEFAULT_REDIRECT_PORT,
    });
  }
  return providers;
}

function optional(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
