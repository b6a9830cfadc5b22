import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CryptoKey } from 'jose';

/**
 * A real OAuth 2.0 / OpenID Connect authorization server for the tests: panva's `oidc-provider` on
 * a loopback port, with one public client (PKCE required, S256), short access tokens and rotating
 * refresh tokens. Logins are consented to by the fixture itself, so a test drives the whole
 * redirect flow with `follow`. It also records what a test asserts about: the authorization
 * requests, the refreshes, and every grant error (a rotated refresh token used twice).
 */
export interface AuthorizationServer {
  issuer: string;
  clientId: string;
  /** The query of every authorization request. */
  authorizations: URLSearchParams[];
  /** One entry per successful token request, by grant type. */
  grants: string[];
  /** Errors the token endpoint answered (`invalid_grant` on a reused refresh token, …). */
  grantErrors: string[];
  /** The subject an access token was issued to; undefined when it is unknown, expired or revoked. */
  subjectOf(accessToken: string): Promise<string | undefined>;
  revoke(accessToken: string): Promise<void>;
  /**
   * Holds the next token requests until `count` of them are waiting (or `maxMs` passed), then lets
   * them through together: concurrent refreshes are made to overlap, as on a slow network.
   */
  holdTokenRequests(count: number, maxMs: number): void;
  /** Follows an authorization URL like a browser whose user logs in and consents, up to the redirect back. */
  follow(authorizationUrl: string): Promise<void>;
  /** With `resourceServer`: the key the server signs its JWT access tokens with, for a test to mint its own. */
  signingKey?: { privateKey: CryptoKey; kid: string };
  close(): Promise<void>;
}

/**
 * A resource server the authorization server issues RFC 9068 JWT access tokens for (RFC 8707
 * resource indicators): a client that asks for `indicator` gets a token for `audience` with `scope`.
 */
export interface ResourceServerOptions {
  indicator: string;
  audience: string;
  scope: string;
  /** `opaque`: tokens the server keeps, so `subjectOf` and `revoke` work on them (default `jwt`). */
  accessTokenFormat?: 'jwt' | 'opaque';
}

interface ServerOptions {
  redirectUris: string[];
  accessTokenSeconds?: number;
  resourceServer?: ResourceServerOptions;
}

interface ProviderLike {
  callback(): (request: IncomingMessage, response: ServerResponse) => void;
  interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    request: IncomingMessage,
    response: ServerResponse,
    result: object,
    options: object,
  ): Promise<void>;
  on(event: string, listener: (...args: never[]) => void): void;
  Grant: new (properties: { accountId: string; clientId: string }) => GrantLike;
  AccessToken: { find(token: string): Promise<{ accountId: string; destroy(): Promise<void> } | undefined> };
}

interface InteractionDetails {
  prompt: {
    name: string;
    details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  };
  params: { client_id: string };
  session?: { accountId: string };
}

interface GrantLike {
  addOIDCScope(scope: string): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}

export async function startAuthorizationServer(options: ServerOptions): Promise<AuthorizationServer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys = options.resourceServer ? await signingKeys() : undefined;
  const provider = await makeProvider(issuer, options, keys?.jwk);
  const fixture = { authorizations: [] as URLSearchParams[], grants: [] as string[], grantErrors: [] as string[] };
  provider.on('grant.success', ((ctx: { oidc: { params: { grant_type: string } } }) =>
    fixture.grants.push(ctx.oidc.params.grant_type)) as never);
  provider.on('grant.error', ((_ctx: unknown, error: { message: string }) =>
    fixture.grantErrors.push(error.message)) as never);
  const handle = provider.callback();
  const gate = new TokenGate();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/auth') fixture.authorizations.push(url.searchParams);
    if (url.pathname.startsWith('/interaction/')) void consent(provider, request, response);
    else if (url.pathname === '/token') gate.pass(() => handle(request, response));
    else handle(request, response);
  });
  return {
    issuer,
    clientId: 'factorly-cli',
    ...fixture,
    subjectOf: async (token) => (await provider.AccessToken.find(token))?.accountId,
    revoke: async (token) => (await provider.AccessToken.find(token))?.destroy(),
    holdTokenRequests: (count, maxMs) => gate.hold(count, maxMs),
    follow: (url) => followLikeABrowser(url),
    ...(keys ? { signingKey: keys.signing } : {}),
    close: () => closeServer(server),
  };
}

/** An RS256 key pair: its private JWK for the provider's `jwks`, and the key itself for a test to sign with. */
async function signingKeys(): Promise<{ jwk: object; signing: { privateKey: CryptoKey; kid: string } }> {
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = 'fixture-rs256';
  return { jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }, signing: { privateKey, kid } };
}

/** RFC 8707 resource indicators issuing RFC 9068 JWT access tokens for one resource server; any other indicator is refused. */
function resourceIndicators(resource: ResourceServerOptions): object {
  return {
    enabled: true,
    defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf ?? resource.indicator,
    useGrantedResource: () => true,
    getResourceServerInfo: (_ctx: unknown, indicator: string) => {
      if (indicator !== resource.indicator) throw new Error(`unknown resource ${indicator}`);
      return {
        scope: resource.scope,
        audience: resource.audience,
        ...(resource.accessTokenFormat === 'opaque'
          ? { accessTokenFormat: 'opaque' }
          : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
      };
    },
  };
}

async function makeProvider(issuer: string, options: ServerOptions, jwk?: object): Promise<ProviderLike> {
  // oidc-provider 9 warns once that it prefers Node 22 ("Unsupported runtime"): it works on 20, so the warning is dropped.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => (String(args[0]).includes('Unsupported runtime') ? undefined : warn(...args));
  // The package ships no types: it is reached through the structural ProviderLike above.
  const packageName = 'oidc-provider';
  const { default: Provider } = (await import(packageName)) as {
    default: new (issuer: string, config: object) => ProviderLike;
  };
  console.warn = warn;
  return new Provider(issuer, {
    clients: [
      {
        client_id: 'factorly-cli',
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    ttl: {
      AccessToken: options.accessTokenSeconds ?? 5,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
      AuthorizationCode: 60,
    },
    rotateRefreshToken: true,
    issueRefreshToken: () => true,
    scopes: ['openid'],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    features: {
      devInteractions: { enabled: false },
      ...(options.resourceServer ? { resourceIndicators: resourceIndicators(options.resourceServer) } : {}),
    },
    ...(jwk ? { jwks: { keys: [jwk] } } : {}),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['factorly-test-cookie-key'] },
  });
}

/** Lets token requests through at once, or holds them until enough are waiting. */
class TokenGate {
  private waiting: (() => void)[] = [];
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  hold(count: number, maxMs: number): void {
    this.count = count;
    this.timer = setTimeout(() => this.release(), maxMs);
  }

  pass(request: () => void): void {
    if (this.count === 0) return request();
    this.waiting.push(request);
    if (this.waiting.length >= this.count) this.release();
  }

  private release(): void {
    clearTimeout(this.timer);
    this.count = 0;
    for (const request of this.waiting.splice(0)) request();
  }
}

/** The person logs in as "ada" and grants what the client asked for. */
async function consent(provider: ProviderLike, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: 'ada' } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const grant = new provider.Grant({
    accountId: details.session?.accountId ?? 'ada',
    clientId: details.params.client_id,
  });
  grant.addOIDCScope((details.prompt.details.missingOIDCScope ?? ['openid']).join(' '));
  for (const [indicator, scopes] of Object.entries(details.prompt.details.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId: await grant.save() } },
    { mergeWithLastSubmission: true },
  );
}

/** Follows redirects by hand, keeping cookies as a browser would, until a page answers without one. */
async function followLikeABrowser(start: string): Promise<void> {
  const cookies = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of response.headers.getSetCookie()) {
      const pair = set.split(';')[0] ?? '';
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = response.headers.get('location');
    const body = await response.text();
    if (!location) {
      if (response.ok) return;
      throw new Error(`the login flow stopped at ${url}: ${response.status} ${body.slice(0, 300)}`);
    }
    url = new URL(location, url).href;
  }
  throw new Error(`the login flow did not end after 20 redirects (at ${url})`);
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
