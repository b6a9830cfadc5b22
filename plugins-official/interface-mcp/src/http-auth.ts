import { createHash, timingSafeEqual } from 'node:crypto';
import type { OAuthResource } from './oauth-resource.js';
import type { AuthResult, NamedToken } from './principal.js';

const PREFIX = 'Bearer ';

/**
 * Checks a request's bearer token against every way this server accepts one. What wins when a value
 * could be read several ways: a named token first, then `--http-token`, then an OAuth access token
 * (a JWT validated against `serve.oauth`). With none configured, every request is let through with no
 * principal (loopback only; `serve` warns).
 */
export class Authenticator {
  private readonly named: { name: string; digest: Buffer }[];
  private readonly unnamed?: Buffer;

  constructor(
    named: readonly NamedToken[],
    unnamed: string | undefined,
    readonly oauth?: OAuthResource,
  ) {
    this.named = named.map(({ name, value }) => ({ name, digest: digest(value) }));
    if (unnamed) this.unnamed = digest(unnamed);
  }

  /** Whether a request needs a token at all. */
  get required(): boolean {
    return this.named.length > 0 || this.unnamed !== undefined || this.oauth !== undefined;
  }

  async authenticate(authorization: string | undefined): Promise<AuthResult> {
    if (!this.required) return {};
    const header = authorization ?? '';
    const presented = header.startsWith(PREFIX) ? header.slice(PREFIX.length) : '';
    const sent = digest(presented);
    // Every token is compared, in constant time, whichever matches: the time taken says nothing of which.
    let name: string | undefined;
    for (const token of this.named) if (timingSafeEqual(sent, token.digest) && name === undefined) name = token.name;
    if (name !== undefined && presented !== '') return { principal: { kind: 'token', agentId: name } };
    if (this.unnamed && timingSafeEqual(sent, this.unnamed) && presented !== '')
      return { principal: { kind: 'http-token' } };
    if (this.oauth && presented !== '') return this.oauth.verify(presented);
    return {
      refusal: {
        status: 401,
        message: 'missing or wrong bearer token',
        ...(presented !== '' && this.oauth ? { error: 'invalid_token' as const } : {}),
      },
    };
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
