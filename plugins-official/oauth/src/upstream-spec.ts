import { DEFAULT_REDIRECT_PORT } from './providers.js';
import type { TokenPlace } from './token-store.js';

/** An upstream MCP server reached over HTTP, as the provider of `type: mcp` declares it (`OAuthUpstreams.declare`). */
export interface UpstreamDeclaration {
  /** The config entry's name. */
  name: string;
  /** Its `url`, as written (secret references resolved at use). */
  url: string;
  /** Its `headers`, as written. */
  headers: Record<string, string>;
  /** The entry's `oauth:` block, checked by `OAuthUpstreams.check`; absent: a client registered by the login (RFC 7591). */
  oauth?: unknown;
}

/** One upstream's login: where its tokens and registered client live, and the client it uses. */
export interface UpstreamSpec extends TokenPlace {
  kind: 'upstream';
  url: string;
  headers: Record<string, string>;
  /** A configured client (may be secret references); none: the login registers one (RFC 7591). */
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
  redirectPort: number;
  /** The key of the registered client and the discovered authorization server, beside the tokens. */
  clientKey: string;
}

const KEYS = ['client_id', 'client_secret', 'scopes', 'redirect_port', 'token_backend', 'token_key'] as const;
const BACKEND = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** What is wrong with an entry's `oauth:` block (empty: nothing), each naming the key. */
export function upstreamOAuthProblems(block: unknown): string[] {
  if (block === undefined) return [];
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    return [`has "oauth" that is not a mapping of ${KEYS.join(', ')}`];
  const raw = block as Record<string, unknown>;
  const problems = Object.keys(raw)
    .filter((key) => !(KEYS as readonly string[]).includes(key))
    .map((key) => `has "oauth.${key}", which is not one of ${KEYS.join(', ')}`);
  for (const key of ['client_id', 'client_secret', 'token_key'] as const)
    if (raw[key] !== undefined && (typeof raw[key] !== 'string' || raw[key] === ''))
      problems.push(`has "oauth.${key}" that is not a non-empty string`);
  if (raw.client_secret !== undefined && raw.client_id === undefined)
    problems.push('has "oauth.client_secret" without "oauth.client_id"');
  if (raw.scopes !== undefined && (!Array.isArray(raw.scopes) || raw.scopes.some((s) => typeof s !== 'string' || !s)))
    problems.push('has "oauth.scopes" that is not a list of scope names');
  const port = raw.redirect_port;
  if (port !== undefined && (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535))
    problems.push('has "oauth.redirect_port" that is not a port number (1 to 65535)');
  if (raw.token_backend !== undefined && (typeof raw.token_backend !== 'string' || !BACKEND.test(raw.token_backend)))
    problems.push('has "oauth.token_backend" that is not a secret backend name');
  return problems;
}

/** The spec of a declared upstream (its block already checked). */
export function readUpstream(declared: UpstreamDeclaration): UpstreamSpec {
  const raw = (declared.oauth ?? {}) as Record<string, unknown>;
  const tokenKey = typeof raw.token_key === 'string' ? raw.token_key : `${declared.name}_oauth`;
  return {
    kind: 'upstream',
    name: declared.name,
    url: declared.url,
    headers: declared.headers,
    ...(typeof raw.client_id === 'string' ? { clientId: raw.client_id } : {}),
    ...(typeof raw.client_secret === 'string' ? { clientSecret: raw.client_secret } : {}),
    scopes: Array.isArray(raw.scopes) ? raw.scopes.map(String) : [],
    redirectPort: typeof raw.redirect_port === 'number' ? raw.redirect_port : DEFAULT_REDIRECT_PORT,
    backend: typeof raw.token_backend === 'string' ? raw.token_backend : 'vault',
    tokenKey,
    clientKey: `${tokenKey}_client`,
  };
}
