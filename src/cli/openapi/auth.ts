import type { ReadSpec } from './spec.js';
import type { SpecOperation } from './operations.js';

type Json = Record<string, unknown>;

/** How an imported tool authenticates: the rest keys to add, and what it needs from the vault and OAuth. */
export interface ToolAuth {
  /** `auth:` of the rest tool. */
  auth?: Json;
  /** Extra `headers:` (an API key sent as a cookie). */
  headers?: Record<string, string>;
  /** Appended to the path (an API key sent in the query). */
  query?: string;
}

/** Everything the operations' security schemes add up to. */
export interface SpecAuth {
  vaultKeys: string[];
  oauthProviders: Record<string, Json>;
  authType: 'api_key' | 'bearer' | 'oauth' | 'none';
  guide: string[];
}

/**
 * Turns security schemes into what a blueprint says: a bearer token, basic credentials or an API key
 * become vault references (`{{vault:<PREFIX>_TOKEN}}`, asked for at install); an OAuth 2.0
 * authorization-code flow or OpenID Connect becomes an OAuth provider the tools name. One instance per
 * import: schemes are turned once, and the keys and providers they need are collected.
 */
export class SecurityMapper {
  readonly collected: SpecAuth = { vaultKeys: [], oauthProviders: {}, authType: 'none', guide: [] };
  private readonly schemes: Record<string, Json>;
  private readonly done = new Map<string, ToolAuth | undefined>();

  constructor(
    spec: ReadSpec,
    private readonly prefix: string,
  ) {
    const doc = spec.document;
    const components = (doc.components ?? {}) as Json;
    this.schemes = ((components.securitySchemes ?? doc.securityDefinitions ?? {}) as Record<string, Json>) ?? {};
  }

  /** The auth of one operation: the first requirement whose schemes this can express. */
  forOperation(operation: SpecOperation): ToolAuth {
    for (const requirement of operation.security) {
      for (const [scheme, scopes] of Object.entries(requirement)) {
        const auth = this.forScheme(scheme, Array.isArray(scopes) ? scopes.map(String) : []);
        if (auth) return auth;
      }
    }
    return {};
  }

  private forScheme(name: string, scopes: string[]): ToolAuth | undefined {
    const scheme = this.schemes[name];
    if (!scheme) return undefined;
    if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') this.addScopes(name, scopes);
    if (this.done.has(name)) return this.done.get(name);
    const auth = this.build(name, scheme, scopes);
    this.done.set(name, auth);
    return auth;
  }

  private build(name: string, scheme: Json, scopes: string[]): ToolAuth | undefined {
    const type = String(scheme.type);
    const httpScheme = String(scheme.scheme ?? '').toLowerCase();
    if (type === 'basic' || (type === 'http' && httpScheme === 'basic')) {
      const key = this.key('CREDENTIALS', name, `"user:password" for ${name} (HTTP basic)`, 'api_key');
      return { auth: { type: 'basic', token: `{{vault:${key}}}` } };
    }
    if (type === 'http' && httpScheme === 'bearer') {
      const key = this.key('TOKEN', name, `the bearer token for ${name}`, 'bearer');
      return { auth: { type: 'bearer', token: `{{vault:${key}}}` } };
    }
    if (type === 'apiKey') return this.apiKey(name, scheme);
    if (type === 'oauth2' || type === 'openIdConnect') return this.oauth(name, scheme, scopes);
    return undefined;
  }

  private apiKey(name: string, scheme: Json): ToolAuth | undefined {
    const field = String(scheme.name ?? '');
    if (!field) return undefined;
    const key = this.key(
      'API_KEY',
      name,
      `the API key for ${name} (sent as ${String(scheme.in)} "${field}")`,
      'api_key',
    );
    const value = `{{vault:${key}}}`;
    if (scheme.in === 'header') return { auth: { type: 'header', header: field, value } };
    if (scheme.in === 'query') return { query: `${encodeURIComponent(field)}=${value}` };
    if (scheme.in === 'cookie') return { headers: { Cookie: `${field}=${value}` } };
    return undefined;
  }

  private oauth(name: string, scheme: Json, scopes: string[]): ToolAuth | undefined {
    const flows = (scheme.flows ?? {}) as Record<string, Json>;
    const code = flows.authorizationCode ?? (scheme.flow === 'accessCode' ? scheme : undefined);
    const issuer =
      scheme.type === 'openIdConnect' && typeof scheme.openIdConnectUrl === 'string'
        ? scheme.openIdConnectUrl.replace(/\/\.well-known\/openid-configuration\/?$/, '')
        : undefined;
    if (!code && !issuer) {
      // Client credentials, implicit or password flows: a token the person obtains and stores.
      const key = this.key('TOKEN', name, `an OAuth access token for ${name}`, 'bearer');
      return { auth: { type: 'bearer', token: `{{vault:${key}}}` } };
    }
    const provider =
      Object.keys(this.collected.oauthProviders).length === 0 ? this.prefix : `${this.prefix}-${slug(name)}`;
    const clientId = this.key('CLIENT_ID', name, `the OAuth client id registered with ${name}`, 'oauth');
    const clientSecret = this.key('CLIENT_SECRET', name, `its client secret (if the app has one)`, 'oauth');
    this.collected.oauthProviders[provider] = {
      client_id: `{{vault:${clientId}}}`,
      client_secret: `{{vault:${clientSecret}}}`,
      ...(issuer ? { issuer } : { auth_url: String(code!.authorizationUrl), token_url: String(code!.tokenUrl) }),
      scopes: [...scopes],
    };
    this.collected.guide.push(`Then log in: factorly auth login ${provider}`);
    return { auth: { type: 'oauth', provider } };
  }

  private addScopes(name: string, scopes: string[]): void {
    const auth = this.done.get(name)?.auth;
    const provider = auth?.type === 'oauth' ? this.collected.oauthProviders[String(auth.provider)] : undefined;
    if (!provider) return;
    const list = provider.scopes as string[];
    for (const scope of scopes) if (!list.includes(scope)) list.push(scope);
  }

  /** A vault key's name (`<PREFIX>_<KIND>`, the scheme's name added when two schemes need the same kind). */
  private key(kind: string, scheme: string, what: string, authType: SpecAuth['authType']): string {
    const base = `${this.prefix.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_${kind}`;
    const name = this.collected.vaultKeys.includes(base)
      ? `${base}_${slug(scheme).toUpperCase().replace(/-/g, '_')}`
      : base;
    if (!this.collected.vaultKeys.includes(name)) {
      this.collected.vaultKeys.push(name);
      this.collected.guide.push(`${name}: ${what}`);
    }
    if (this.collected.authType === 'none') this.collected.authType = authType;
    return name;
  }
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'auth'
  );
}
