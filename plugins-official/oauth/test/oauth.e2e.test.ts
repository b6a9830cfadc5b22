import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginInBackground } from '../../../test/helpers/auth-login.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';
import { runAsync } from '../../../test/helpers/installed.js';
import { freePort, isolatedEnv } from '../../../test/helpers/listening.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/oauth-server.js';
import { BIN, makeProject, runCli, tempProject, type CliRun } from '../../../test/helpers/project.js';

/** An API that accepts only live access tokens of the authorization server, answering who they belong to. */
async function startApi(idp: AuthorizationServer, seen: string[]): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token) seen.push(token);
    void (token ? idp.subjectOf(token) : Promise.resolve(undefined)).then((subject) => {
      response.writeHead(subject ? 200 : 401, { 'content-type': 'application/json' });
      response.end(JSON.stringify(subject ? { user: subject } : { error: 'invalid_token' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('OAuth for rest tools, against a real authorization server (oidc-provider)', () => {
  let idp: AuthorizationServer;
  let api: { server: Server; url: string };
  const tokensSeen: string[] = [];
  let project: string;
  let env: Record<string, string>;
  const cli = (...args: string[]): CliRun => runCli(args, project, { env });
  // The API and the authorization server live in this process: a call must not block it (spawnSync would).
  const cliAsync = (...args: string[]): Promise<CliRun> => runAsync(process.execPath, [BIN, ...args], project, env);

  beforeAll(async () => {
    const callbackPort = await freePort();
    idp = await startAuthorizationServer({
      redirectUris: [`http://127.0.0.1:${callbackPort}/callback`],
      accessTokenSeconds: 6,
    });
    api = await startApi(idp, tokensSeen);
    project = makeProject({
      'factorly.yaml': [
        'oauth_providers:',
        '  idp:',
        `    issuer: ${idp.issuer}`,
        `    client_id: ${idp.clientId}`,
        '    scopes: [openid]',
        `    redirect_port: ${callbackPort}`,
        'tools:',
        '  me:',
        '    type: rest',
        `    base_url: ${api.url}`,
        '    method: GET',
        '    path: /me',
        '    auth: {type: oauth, provider: idp}',
        '',
      ].join('\n'),
    });
    env = isolatedEnv(project, { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') });
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => api?.server.close(resolve));
    await idp?.close();
    rmSync(project, { recursive: true, force: true });
  });

  it('refuses a call before login, saying what to run; status says not authenticated', () => {
    const status = cli('auth', 'status', '--json');
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ providers: [{ name: 'idp', state: 'not_authenticated' }] });
    const call = cli('call', 'me'); // refused before any request: nothing in this process is waited on
    expect(call.status).not.toBe(0);
    expect(call.stderr + call.stdout).toContain('run: factorly auth login idp');
  });

  it('logs in with PKCE S256 through the loopback callback, then the tool is called with the token', async () => {
    const login = await loginInBackground(['idp'], project, env, /http:\/\/127\.0\.0\.1:\d+\/auth\?\S+/);
    await idp.follow(login.url);
    const ended = await login.done;
    expect(ended.status, ended.stderr).toBe(0);
    expect(ended.stdout).toContain('Authenticated with idp: ✓ valid');

    const asked = idp.authorizations.at(-1)!;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const call = await cliAsync('call', 'me', '--json');
    expect(call.status, call.stderr).toBe(0);
    expect(call.stdout).toContain('ada');
    expect(JSON.parse(cli('auth', 'status', '--json').stdout).providers[0]).toMatchObject({
      state: 'valid',
      refreshable: true,
    });
  }, 60_000);

  it('four processes calling across an expiry share one refresh at a time: no rotated token is reused', async () => {
    const { expiresAt } = JSON.parse(cli('auth', 'status', '--json').stdout).providers[0] as { expiresAt: number };
    // Half the 6 s lifetime before expiry the token is renewed: wait until then, computed, not guessed.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - 3_000 - Date.now() + 200)));
    const refreshesBefore = idp.grants.filter((grant) => grant === 'refresh_token').length;
    // Refreshes that overlap would all reach the server together: it waits for four (or 4 s) before answering.
    idp.holdTokenRequests(4, 4_000);
    const runs = await Promise.all([1, 2, 3, 4].map(() => cliAsync('call', 'me', '--json')));
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    expect(idp.grantErrors).toEqual([]);
    // One refresh per expiry, however many processes needed the token then.
    expect(idp.grants.filter((grant) => grant === 'refresh_token').length).toBe(refreshesBefore + 1);
  }, 60_000);

  it('a token the API refuses (revoked) is refreshed once and the call goes through', async () => {
    await idp.revoke(tokensSeen.at(-1)!);
    const refreshesBefore = idp.grants.filter((grant) => grant === 'refresh_token').length;
    const call = await cliAsync('call', 'me', '--json');
    expect(call.status, call.stderr).toBe(0);
    expect(call.stdout).toContain('ada');
    expect(idp.grants.filter((grant) => grant === 'refresh_token').length).toBe(refreshesBefore + 1);
  }, 60_000);

  it('never writes a token to the log, its files or any output', () => {
    expect(tokensSeen.length).toBeGreaterThan(2);
    const logs = cli('logs', '--json', '-n', '100');
    const show = cli('auth', 'status', '--json');
    for (const token of new Set(tokensSeen)) {
      expect(leaksIn(logs.stdout + show.stdout, token)).toEqual([]);
      expect(leaksUnder(join(project, '.factorly'), token)).toEqual([]);
    }
  });

  it('logout removes the tokens: the next call asks for a login again', async () => {
    const out = cli('auth', 'logout', 'idp');
    expect(out.stdout).toContain('Logged out of idp (removed vault:idp_oauth)');
    expect(JSON.parse(cli('auth', 'status', '--json').stdout).providers[0].state).toBe('not_authenticated');
    expect((await cliAsync('call', 'me')).stderr).toContain('run: factorly auth login idp');
  });

  it("a client_id the server does not know ends the login at once, in the server's words", async () => {
    // The server shows this refusal to the person instead of redirecting (RFC 6749 §4.1.2.1): the
    // login used to wait its two minutes for a callback that could not come.
    const root = tempProject({
      'factorly.yaml': `oauth_providers:\n  idp:\n    issuer: ${idp.issuer}\n    client_id: not-registered\n    redirect_port: ${await freePort()}\ntools: {}\n`,
    });
    const run = await runAsync(
      process.execPath,
      [BIN, 'auth', 'login', 'idp', '--no-browser'],
      root,
      isolatedEnv(root, env),
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'OAuth provider "idp": the authorization server refused the login request (HTTP 400 invalid_client) (run: factorly auth login idp)',
    );
    // Asked before a person was sent there: no authorization URL was printed.
    expect(run.stderr).not.toMatch(/\/auth\?/);
  }, 60_000);

  it('an unknown provider and a provider without client_id are errors that name them', () => {
    expect(cli('auth', 'login', 'nope').stderr).toContain(
      'no OAuth provider "nope" in oauth_providers, nor an upstream MCP server of that name with a url in tools (known: idp)',
    );
    const broken = tempProject({
      'factorly.yaml': 'oauth_providers:\n  x:\n    issuer: https://example.invalid\ntools: {}\n',
    });
    const run = runCli(['auth', 'status'], broken, { env: isolatedEnv(broken) });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/oauth_providers.*client_id|client_id.*oauth_providers/s);
  });
});
