import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  close(): Promise<void>;
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
  prompt: { name: string; details: { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> } };
  params: { client_id: string };
  session?: { accountId: string };
}

interface GrantLike {
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

export interface AuthorizationServerOptions {
  redirectUris: string[];
  accessTokenSeconds?: number;
  /**
   * A resource server (RFC 8707 `resource`, e.g. an MCP server's URL) tokens may be asked for:
   * they are then issued for it (opaque, `openid` scope); any other resource is refused.
   */
  resourceServer?: string;
}

export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = await makeProvider(issuer, options);
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
    close: () => closeServer(server),
  };
}

async function makeProvider(issuer: string, options: AuthorizationServerOptions): Promise<ProviderLike> {
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
    features: { devInteractions: { enabled: false }, ...resourceIndicators(options.resourceServer) },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['factorly-test-cookie-key'] },
  });
}

/** RFC 8707: tokens for the one resource server named (oidc-provider refuses every `resource` by default). */
function resourceIndicators(resourceServer: string | undefined): object {
  if (resourceServer === undefined) return {};
  return {
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx: unknown, indicator: string) => {
        if (indicator !== resourceServer) throw new Error(`unknown resource ${indicator}`);
        return { scope: 'openid', accessTokenFormat: 'opaque' };
      },
    },
  };
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
  for (const [resource, scopes] of Object.entries(details.prompt.details.missingResourceScopes ?? {}))
    grant.addResourceScope(resource, scopes.join(' '));
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
