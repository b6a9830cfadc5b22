import { printableLine } from '@factorly/text-kit';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { FactorlyError } from '@factorly/error-kit';
import type { AuthRefusal, AuthResult, Principal } from './principal.js';
import { urlProblem, type OAuthSpec } from './serve-config.js';

/** Signatures an access token may carry: asymmetric only (a shared secret would let the resource mint tokens; `none` is no signature). */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
/** Clocks of the issuer and this machine may differ this much. */
const CLOCK_TOLERANCE_S = 30;
const DISCOVERY_TIMEOUT_MS = 10_000;
/** The longest subject taken as an agent id. */
const MAX_SUBJECT = 255;

/**
 * factorly's HTTP endpoint as an OAuth 2.0 protected resource (`serve.oauth`, MCP authorization):
 * its RFC 9728 metadata names the issuer clients log in with, and every bearer token is an RFC 9068
 * JWT access token checked against that issuer's keys (found by discovery: RFC 8414, then OpenID
 * Connect), its audience, expiry and type. The token's subject is the agent.
 */
export class OAuthResource {
  private keys?: Promise<JWTVerifyGetKey>;

  constructor(
    private readonly spec: OAuthSpec,
    /** Names of named tokens: a subject that equals one is refused, so no issuer can mint another agent's identity. */
    private readonly reserved: ReadonlySet<string>,
  ) {}

  /** The RFC 9728 document for the MCP endpoint a client reached at `addressed`. */
  metadata(addressed: string): Record<string, unknown> {
    const { issuer, resource, scopes } = this.spec;
    return {
      resource: resource ?? addressed,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      ...(scopes && scopes.length > 0 ? { scopes_supported: scopes } : {}),
      resource_name: 'factorly',
    };
  }

  async verify(token: string): Promise<AuthResult> {
    const { jwtVerify } = await import('jose');
    let keys: JWTVerifyGetKey;
    try {
      keys = await this.issuerKeys();
    } catch (error) {
      return refused(503, `cannot check the token: ${messageOf(error)}`);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.spec.issuer,
        audience: this.spec.audience,
        typ: 'at+jwt',
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: CLOCK_TOLERANCE_S,
      }));
    } catch (error) {
      return refused(401, `invalid access token: ${messageOf(error)}`, 'invalid_token');
    }
    return this.principalOf(payload);
  }

  private principalOf(payload: JWTPayload): AuthResult {
    const subject = payload.sub ?? '';
    if (subject === '' || subject.length > MAX_SUBJECT || printableLine(subject) !== subject)
      return refused(401, 'invalid access token: its subject is not a printable name', 'invalid_token');
    if (this.reserved.has(subject))
      return refused(
        401,
        `invalid access token: subject "${subject}" is a named token's agent (serve.tokens)`,
        'invalid_token',
      );
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    const granted = new Set(scope.split(' '));
    const missing = (this.spec.scopes ?? []).filter((wanted) => !granted.has(wanted));
    if (missing.length > 0)
      return {
        refusal: {
          status: 403,
          message: `the access token lacks the scope ${missing.join(' ')}`,
          error: 'insufficient_scope',
          scope: (this.spec.scopes ?? []).join(' '),
        },
      };
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const principal: Principal = {
      kind: 'oauth',
      agentId: subject,
      subject,
      issuer: this.spec.issuer,
      ...(clientId ? { clientId } : {}),
      ...(scope ? { scope } : {}),
    };
    return { principal };
  }

  /** The issuer's key set, discovered once; a failed discovery is tried again on the next request. */
  private issuerKeys(): Promise<JWTVerifyGetKey> {
    if (!this.keys) {
      this.keys = discoverKeys(this.spec.issuer);
      this.keys.catch(() => (this.keys = undefined));
    }
    return this.keys;
  }
}

/** The JWKS of `issuer`, from its RFC 8414 metadata or, failing that, its OpenID configuration. */
async function discoverKeys(issuer: string): Promise<JWTVerifyGetKey> {
  const { createRemoteJWKSet } = await import('jose');
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  const candidates = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
  const failures: string[] = [];
  for (const candidate of candidates) {
    const metadata = await fetchJson(candidate).catch((error: unknown) => void failures.push(messageOf(error)));
    if (!metadata) continue;
    if (metadata.issuer !== issuer)
      throw new FactorlyError(
        'AUTH_FAILED',
        `${candidate} names the issuer ${JSON.stringify(metadata.issuer)}, not ${issuer}`,
      );
    const jwks = typeof metadata.jwks_uri === 'string' ? metadata.jwks_uri : undefined;
    const why = jwks === undefined ? `${candidate} has no jwks_uri` : urlProblem(jwks);
    if (why) throw new FactorlyError('AUTH_FAILED', why);
    return createRemoteJWKSet(new URL(jwks!), { timeoutDuration: DISCOVERY_TIMEOUT_MS });
  }
  throw new FactorlyError('AUTH_FAILED', `the issuer ${issuer} publishes no metadata (${failures.join('; ')})`);
}

async function fetchJson(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), redirect: 'error' });
  if (!response.ok) throw new FactorlyError('AUTH_FAILED', `${url}: HTTP ${response.status}`);
  const body = (await response.json()) as unknown;
  if (typeof body !== 'object' || body === null) throw new FactorlyError('AUTH_FAILED', `${url}: not a JSON object`);
  return body as Record<string, unknown>;
}

function refused(status: AuthRefusal['status'], message: string, error?: AuthRefusal['error']): AuthResult {
  return { refusal: { status, message, ...(error ? { error } : {}) } };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
