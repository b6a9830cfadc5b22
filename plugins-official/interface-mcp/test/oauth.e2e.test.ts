import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Recorded } from 'factorly';
import { startTestKernel, type TestKernel } from 'factorly/testing';
import { generateKeyPair, SignJWT, UnsecuredJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/listening.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/oauth-server.js';
import { serveInProcess, type InProcessServe } from './serve-in-process.js';

const AUDIENCE = 'factorly-mcp';
const CI_TOKEN = 'ci-4e8a1f0b7c';

/** An MCP client's OAuth state, in memory: the fixture's public client, PKCE, the tokens it got. */
class MemoryClientProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private saved?: OAuthTokens;
  private verifier = '';

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'oauth-test', redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return { client_id: 'factorly-cli' };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let as: AuthorizationServer;
let started: TestKernel;
let url: string;
let callback: Server;
let callbackUrl: string;
const codes: string[] = [];
let served: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  // Where the browser comes back with the code (the MCP client's loopback redirect).
  callback = createServer((request, response) => {
    codes.push(new URL(request.url ?? '/', 'http://x').searchParams.get('code') ?? '');
    response.end('logged in');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  as = await startAuthorizationServer({
    redirectUris: [callbackUrl],
    accessTokenSeconds: 300,
    resourceServer: { indicator: url, audience: AUDIENCE, scope: 'mcp' },
  });
  process.env.OAUTH_TEST_CI = CI_TOKEN;
  started = await startTestKernel(
    `serve:
  oauth: {issuer: "${as.issuer}", audience: ${AUDIENCE}, scopes: [mcp]}
  tokens: [{name: ci, token: "{{env:OAUTH_TEST_CI}}"}]
tools:
  hello: {type: cli, command: echo, args: [hi]}
`,
    [],
    { official: ['provider-cli', 'vault', 'shadow', 'interface-mcp'] },
  );
  served = await serveInProcess(started, {}, port);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await served?.stop();
  await started?.stop();
  await as?.close();
  callback?.close();
  delete process.env.OAUTH_TEST_CI;
});

const initialize = (token?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

/** A token like the issuer's: every claim as it would sign it, unless the case says otherwise. */
async function mint(
  claims: JWTPayload = {},
  header: { typ?: string; key?: Parameters<SignJWT['sign']>[0] } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: as.issuer,
    aud: AUDIENCE,
    sub: 'grace',
    client_id: 'factorly-cli',
    scope: 'mcp',
    iat: now,
    exp: now + 300,
    jti: `j${now}`,
    ...claims,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', kid: as.signingKey!.kid, typ: header.typ ?? 'at+jwt' })
    .sign(header.key ?? as.signingKey!.privateKey);
}

describe('serve.oauth: the HTTP endpoint as an OAuth protected resource', () => {
  it('publishes RFC 9728 metadata and answers 401 with where it is', async () => {
    const metadata = `http://127.0.0.1:${new URL(url).port}/.well-known/oauth-protected-resource/mcp`;
    for (const at of [metadata, metadata.replace(/\/mcp$/, '')]) {
      const document = await fetch(at);
      expect(document.status).toBe(200);
      expect(await document.json()).toEqual({
        resource: url,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp'],
        resource_name: 'factorly',
      });
    }
    const anonymous = await initialize();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}"`);
  });

  it("lets an MCP client discover the issuer from the 401, log in and call, as the token's subject", async () => {
    const provider = new MemoryClientProvider(callbackUrl);
    const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    await expect(new Client({ name: 'oauth-agent', version: '2.0.0' }).connect(first)).rejects.toThrow(/Unauthorized/);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(url);
    await as.follow(provider.authorizationUrl!.href);
    await first.finishAuth(codes.at(-1)!);
    const client = new Client({ name: 'oauth-agent', version: '2.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['hello']);
    expect(await client.callTool({ name: 'hello', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'hi\n' }],
    });

    const events = await started.events();
    const opened = events.find((event): event is Recorded<'session.opened'> => event.type === 'session.opened');
    expect(opened?.data).toMatchObject({
      agentId: 'ada',
      client: { name: 'oauth-agent', version: '2.0.0' },
      principal: {
        kind: 'oauth',
        agentId: 'ada',
        subject: 'ada',
        clientId: 'factorly-cli',
        issuer: as.issuer,
        scope: 'mcp',
      },
    });
    const call = events.find((event): event is Recorded<'call.requested'> => event.type === 'call.requested');
    expect(call?.data.agentId).toBe('ada');
    expect(JSON.stringify(events)).not.toContain(provider.tokens()!.access_token);
  });

  it('refuses tokens of another audience or issuer, a bad signature, alg none, an expired one or another type', async () => {
    expect((await initialize(await mint())).status).toBe(200);
    const other = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string][] = [
      ['another audience', await mint({ aud: 'another-api' })],
      ['another issuer', await mint({ iss: 'http://127.0.0.1:9/other' })],
      ['a bad signature', await mint({}, { key: other.privateKey })],
      [
        'alg none',
        new UnsecuredJWT({ iss: as.issuer, aud: AUDIENCE, sub: 'grace', scope: 'mcp', exp: now + 300 }).encode(),
      ],
      ['an expired token', await mint({ iat: now - 7200, exp: now - 3600 })],
      ['an ID token (typ JWT)', await mint({}, { typ: 'JWT' })],
      ['no JWT at all', 'not-a-jwt'],
      ["a named token's agent as subject", await mint({ sub: 'ci' })],
    ];
    for (const [why, token] of cases) {
      const response = await initialize(token);
      expect([why, response.status]).toEqual([why, 401]);
      expect([why, response.headers.get('www-authenticate')]).toEqual([
        why,
        expect.stringMatching(
          /^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="invalid access token: /,
        ),
      ]);
    }
    const narrow = await initialize(await mint({ scope: 'read' }));
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(narrow.headers.get('www-authenticate')).toContain('scope="mcp"');
  });

  it('takes a named token beside OAuth tokens', async () => {
    const client = new Client({ name: 'ci-runner', version: '1' });
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${CI_TOKEN}` } },
      }),
    );
    expect(await client.callTool({ name: 'hello', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'hi\n' }],
    });
    const calls = (await started.events()).filter((event) => event.type === 'call.requested');
    expect(calls.map((event) => event.type === 'call.requested' && event.data.agentId)).toEqual(['ada', 'ci']);
  });
});
