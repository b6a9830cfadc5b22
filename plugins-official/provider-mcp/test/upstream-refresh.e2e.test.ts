import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loginInBackground } from '../../../test/helpers/auth-login.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';
import { freePort, isolatedEnv } from '../../../test/helpers/listening.js';
import { startResourceServer } from '../../../test/helpers/mcp-resource-server.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/oauth-server.js';
import { makeProject } from '../../../test/helpers/project.js';
import { runCliAsync, serveClient } from './serve-client.js';

describe('an upstream login is refreshed under the cross-process lock (oidc-provider, rotating refresh tokens)', () => {
  let idp: AuthorizationServer;
  let api: { server: Server; url: string };
  const tokensSeen: string[] = [];
  let root: string;
  const env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
  let agent: { client: Client; stderr: () => string };
  const refreshes = (): number => idp.grants.filter((grant) => grant === 'refresh_token').length;
  const whoami = async (): Promise<unknown> => agent.client.callTool({ name: 'api.whoami', arguments: {} });

  beforeAll(async () => {
    const callbackPort = await freePort();
    api = await startResourceServer(() => idp, tokensSeen);
    idp = await startAuthorizationServer({
      redirectUris: [`http://127.0.0.1:${callbackPort}/callback`],
      accessTokenSeconds: 6,
      resourceServer: { indicator: api.url, audience: api.url, scope: 'openid', accessTokenFormat: 'opaque' },
    });
    root = makeProject({
      '.factorly/factorly.yaml': `tools:
  api:
    type: mcp
    url: ${api.url}
    oauth:
      client_id: ${idp.clientId}
      scopes: [openid]
      redirect_port: ${callbackPort}
`,
    });
  }, 60_000);

  afterAll(async () => {
    await agent?.client.close();
    await new Promise((resolve) => api?.server.close(resolve));
    await idp?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('logs in with the configured client through the 401 discovery, then serves', { timeout: 60_000 }, async () => {
    const login = await loginInBackground(
      ['api'],
      root,
      isolatedEnv(root, env),
      /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/,
    );
    await idp.follow(login.url);
    const ended = await login.done;
    expect(ended.status, ended.stderr).toBe(0);
    const asked = idp.authorizations.at(-1)!;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('client_id')).toBe(idp.clientId);
    expect(asked.get('resource')).toBe(api.url);

    agent = await serveClient(root, { env });
    expect(await whoami()).toMatchObject({ content: [{ type: 'text', text: 'you are ada' }] });
  });

  it(
    'a running serve and another process calling across an expiry refresh once, reusing no rotated token',
    { timeout: 60_000 },
    async () => {
      const status = await runCliAsync(['auth', 'status', 'api', '--json'], root, '', env);
      const { expiresAt } = JSON.parse(status.stdout).upstreams[0] as { expiresAt: number };
      // Half the 6 s lifetime before expiry the token is renewed: wait until then, computed, not guessed.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - 3_000 - Date.now() + 200)));
      const before = refreshes();
      idp.holdTokenRequests(2, 3_000);
      const [served, called] = await Promise.all([whoami(), runCliAsync(['call', 'api.whoami'], root, '', env)]);
      expect(served).toMatchObject({ content: [{ type: 'text', text: 'you are ada' }] });
      expect(called.status, called.stderr).toBe(0);
      expect(called.stdout).toContain('you are ada');
      expect(idp.grantErrors).toEqual([]);
      expect(refreshes()).toBe(before + 1);
    },
  );

  it(
    'a token the server refuses (revoked) is renewed once and the call goes through',
    { timeout: 60_000 },
    async () => {
      await idp.revoke(tokensSeen.at(-1)!);
      const before = refreshes();
      expect(await whoami()).toMatchObject({ content: [{ type: 'text', text: 'you are ada' }] });
      expect(refreshes()).toBe(before + 1);
    },
  );

  it('never writes a token to the log, its files or any output', { timeout: 60_000 }, async () => {
    const [logs, shown] = await Promise.all([
      runCliAsync(['logs', '--json', '-n', '100'], root, '', env),
      runCliAsync(['auth', 'status', '--json'], root, '', env),
    ]);
    expect(new Set(tokensSeen).size).toBeGreaterThan(2);
    for (const token of new Set(tokensSeen)) {
      expect(leaksIn(logs.stdout + shown.stdout + agent.stderr(), token)).toEqual([]);
      expect(leaksUnder(join(root, '.factorly'), token)).toEqual([]);
    }
  });
});
