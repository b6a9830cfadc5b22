import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaksIn } from '../../../test/helpers/leaks.js';
import { freePort } from '../../../test/helpers/listening.js';
import { startResourceServer } from '../../../test/helpers/mcp-resource-server.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/helpers/oauth-server.js';
import { cli, launchChromium, project, shoot, startUi, type RunningUi } from './harness.js';

const VAULT_ENV = { FACTORLY_VAULT_PASSWORD: 'correct horse battery staple' };

let idp: AuthorizationServer;
let api: { server: Server; url: string };
const tokensSeen: string[] = [];
let proj: ReturnType<typeof project>;
let ui: RunningUi;
let browser: Browser;
let page: Page;
/** Every page the browser was shown, for the token canary. */
const shown: string[] = [];

beforeAll(async () => {
  const [providerPort, upstreamPort] = [await freePort(), await freePort()];
  api = await startResourceServer(() => idp, tokensSeen);
  idp = await startAuthorizationServer({
    redirectUris: [providerPort, upstreamPort].map((port) => `http://127.0.0.1:${port}/callback`),
    accessTokenSeconds: 600,
    resourceServer: { indicator: api.url, audience: api.url, scope: 'openid', accessTokenFormat: 'opaque' },
  });
  proj = project({
    '.factorly/factorly.yaml': `oauth_providers:
  idp:
    issuer: ${idp.issuer}
    client_id: ${idp.clientId}
    scopes: [openid]
    redirect_port: ${providerPort}
tools:
  me:
    type: rest
    base_url: http://127.0.0.1:9
    method: GET
    path: /me
    auth: {type: oauth, provider: idp}
  api:
    type: mcp
    url: ${api.url}
    oauth: {client_id: ${idp.clientId}, scopes: [openid], redirect_port: ${upstreamPort}}
`,
  });
  [ui, browser] = await Promise.all([startUi(proj.root, VAULT_ENV), launchChromium()]);
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.on(
    'load',
    () =>
      void page.content().then(
        (text) => shown.push(text),
        () => undefined,
      ),
  );
  await page.goto(ui.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  expect(await ui?.stop()).toBe(0);
  await new Promise((resolve) => api?.server.close(resolve));
  await idp?.close();
  proj?.remove();
});

const row = (name: string) => page.locator(`#login-${name}`);

/** Clicks a row's button and waits for the page the browser ends on (a login goes out to the server and back). */
async function press(name: string, label: string, lands: RegExp): Promise<void> {
  await row(name)
    .getByRole('button', { name: `${label}: ${name}` })
    .click();
  await page.waitForURL(lands, { timeout: 15_000 }).catch(async (error: Error) => {
    throw new Error(`${error.message}: the browser is at ${page.url()}: ${await page.locator('body').innerText()}`);
  });
}

describe('the Auth page', () => {
  it('lists providers and upstreams with their state and the tools that use them', async () => {
    await page.goto(`${ui.origin}/auth`);
    expect(await page.locator('nav a[aria-current="page"]').innerText()).toBe('Auth');
    expect(await row('idp').locator('.t-login').innerText()).toBe('not authenticated');
    expect(await row('idp').locator('.t-uses').innerText()).toBe('used by 1 tool');
    expect(await row('api').locator('.t-login').innerText()).toBe('not authenticated');
    expect(await row('api').locator('.t-server').innerText()).toBe('needs login');
    expect(await row('api').locator('.t-server span[title]').getAttribute('title')).toContain(
      'answered 401 Unauthorized: it needs a login (run: factorly auth login api)',
    );
    expect(await row('api').locator('.t-uses').innerText()).toBe('no tool');
    await shoot(page, 'auth-before');
  });

  it(
    'logs in to a provider (its page opens, the callback lands back here) and refreshes it',
    { timeout: 60_000 },
    async () => {
      await press('idp', 'Log in', /\/auth\?done=idp$/);
      expect(await page.getByRole('status').innerText()).toBe('Logged in to idp.');
      expect(await row('idp').locator('.t-login').innerText()).toMatch(/^valid expires in (9|10)m$/);
      expect(idp.authorizations.at(-1)!.get('code_challenge_method')).toBe('S256');
      const before = idp.grants.filter((grant) => grant === 'refresh_token').length;
      await press('idp', 'Refresh', /\/auth\?refreshed=idp$/);
      expect(await page.getByRole('status').innerText()).toBe('Refreshed the token of idp.');
      expect(idp.grants.filter((grant) => grant === 'refresh_token').length).toBe(before + 1);
    },
  );

  it('logs in to an upstream MCP server: it connects and its tools are served', { timeout: 60_000 }, async () => {
    await press('api', 'Log in', /\/auth\?done=api$/);
    expect(await page.getByRole('status').innerText()).toBe('Logged in to api.');
    expect(idp.authorizations.at(-1)!.get('resource')).toBe(api.url);
    // The UI's own connection to the server waits for the new login and reconnects (within a second).
    await expect
      .poll(
        async () => {
          await page.goto(`${ui.origin}/auth`);
          return row('api').locator('.t-server').innerText();
        },
        { timeout: 15_000 },
      )
      .toBe('connected');
    expect(await row('api').locator('.t-uses').innerText()).toBe('used by 1 tool');
    await shoot(page, 'auth-logged-in');
  });

  it('logs out, and never shows a token', { timeout: 60_000 }, async () => {
    const bundle = JSON.parse((await cli(['vault', 'get', 'idp_oauth'], proj.root, VAULT_ENV)).stdout) as {
      access_token: string;
      refresh_token: string;
    };
    await press('idp', 'Log out', /\/auth\?loggedout=idp$/);
    expect(await page.getByRole('status').innerText()).toBe('Logged out of idp: its tokens were removed.');
    expect(await row('idp').locator('.t-login').innerText()).toBe('not authenticated');
    shown.push(await page.content());
    for (const token of [bundle.access_token, bundle.refresh_token, ...new Set(tokensSeen)])
      expect(leaksIn(shown.join('\n'), token)).toEqual([]);
  });
});
