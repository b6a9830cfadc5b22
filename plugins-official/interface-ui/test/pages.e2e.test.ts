import type { ChildProcess } from 'node:child_process';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressOf,
  axeProblems,
  cli,
  COLOUR_RULES,
  WIDTH_RULES,
  describeProblems,
  DESKTOP,
  events,
  openUi,
  overflowing,
  PHONE,
  project,
  routerPaths,
  SCREENSHOTS,
  spawnCli,
  TOOLS,
  type OpenUi,
  type RunningUi,
} from './harness.js';
import { join } from 'node:path';
import { echo, listing, upstream } from '../../../test/helpers/drifting-upstream.js';
import { mkdirSync } from 'node:fs';

// An upstream whose listing drifts after its first (so /pins/:tool has a held tool to show).
const drifting = listing([echo()]);
// A login to show on /auth; `say` without a description, `deploy` with an enum param that waits for approval, a denied tool, a script.
const YAML = `oauth_providers:
  github: {client_id: gh-client, auth_url: https://github.invalid/login/oauth/authorize, token_url: https://github.invalid/login/oauth/access_token, scopes: [repo]}
tools:
${TOOLS.say}  deploy:
    type: cli
    command: echo
    args: ["deployed {{env}}"]
    parameters:
      - name: env
        type: enum
        enum: [staging, prod]
        required: true
    shadow: {confirm: true, timeout: 5m}
${TOOLS.forbidden}${TOOLS.triage}${upstream('up', drifting.file)}`;
const VAULT_ENV = { FACTORLY_VAULT_PASSWORD: 'correct horse battery staple' };

let opened: OpenUi;
const proj = project({ '.factorly/factorly.yaml': YAML });
let ui: RunningUi;
let page: Page;
let waiting: ChildProcess[] = [];
/** What each route's params are filled with: real names and ids of this project. */
const samples: Record<string, string> = { file: 'app.css' };
/** Values for a route whose param means something else than the same name elsewhere. */
const routeSamples: Record<string, Record<string, string>> = { '/blueprints/:name': { name: 'github' } };
/** Query strings a route needs to show its page rather than a usage error. */
const queries: Record<string, () => string> = {};

beforeAll(async () => {
  opened = await openUi(proj, {
    env: VAULT_ENV,
    agents: [['claude-code', '1.0.42']],
  });
  ({ ui, page } = opened);
  const [agent] = opened.agents;
  await page.goto(`${ui.origin}/approvals`);
  // A call waiting for approval and a question (so /approvals shows both cards), a key in the vault, a script, a code tool.
  waiting = [
    spawnCli(['call', 'deploy', '--env', 'prod'], proj.root),
    spawnCli(['call', 'factorly.ask', '--name', 'region', '--description', 'Where?', '--choices', 'eu,us'], proj.root),
  ];
  const code = 'async function run(p) { return `hi ${p.who}`; }';
  await Promise.all([
    cli(['vault', 'set', 'GITHUB_TOKEN', 's3cret'], proj.root, VAULT_ENV).then((r) => expect(r.status).toBe(0)),
    agent.callTool({ name: 'factorly.code', arguments: { code, params: { who: 'x' } } }),
    agent
      .callTool({ name: 'triage', arguments: {} })
      .then(() => agent.callTool({ name: 'say', arguments: { text: 'hi' } })),
  ]);
  await page.locator('.approval:nth-child(2)').waitFor({ timeout: 20_000 });
  const log = await events(proj.root);
  const call = (tool: string) =>
    log.find((e) => e.type === 'call.requested' && e.data.tool === tool)!.data as {
      callId: string;
      agentId?: string;
    };
  samples.callId = call('triage').callId;
  samples.id = call('triage').agentId!;
  samples.name = 'deploy';
  samples.tool = await heldTool();
  const source = log.find((e) => e.type === 'source.recorded')!.data as { sha: string };
  queries['/tools/promote'] = () => `?from-sha=${source.sha}`;
}, 90_000);

/** Lists the tools (pinning up.echo), changes up's listing, and lists again until up.echo is held. */
async function heldTool(): Promise<string> {
  const listed = async () => {
    const response = await fetch(`${ui.origin}/tools`, { headers: { cookie: `factorly_session=${ui.token}` } });
    return response.text();
  };
  for (let tries = 0; !(await listed()).includes('up.echo'); tries += 1)
    if (tries > 100) throw new Error('up.echo was never listed');
  drifting.set([echo({ description: 'Echoes its text, changed.' })]);
  for (let tries = 0; !(await listed()).includes('badge-held'); tries += 1) {
    if (tries > 200) throw new Error('up.echo was never held');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'up.echo';
}

afterAll(async () => {
  for (const child of waiting) if (child.pid) process.kill(-child.pid, 'SIGKILL');
  expect(await opened?.close()).toBe(0);
});

/** The routes that answer with a page (HTML), as the router lists them, with the address each is shown at. */
async function htmlPages(): Promise<{ route: string; address: string }[]> {
  const pages: { route: string; address: string }[] = [];
  for (const route of routerPaths()) {
    const address = addressOf(route, { ...samples, ...routeSamples[route] }) + (queries[route]?.() ?? '');
    const response = await fetch(`${ui.origin}${address}`, {
      headers: { cookie: `factorly_session=${ui.token}` },
      redirect: 'manual',
    });
    const type = response.headers.get('content-type') ?? '';
    await response.body?.cancel();
    // Redirects lead to a page of its own; files and event streams are no pages.
    if (response.status >= 300 && response.status < 400) continue;
    if (!type.startsWith('text/html')) continue;
    expect(response.status, address).toBe(200);
    pages.push({ route, address });
  }
  return pages;
}

/** A file name for a route: `/tools/:name/edit` → `tools-name-edit`. */
function slug(route: string): string {
  return route.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'root';
}

describe('every page the router knows', () => {
  it('has no serious or critical axe-core finding, light or dark, fits a phone, and is shot at 1280×900 and 390×844', async () => {
    const pages = await htmlPages();
    // The pages this UI has today, at least; pages added later are walked the same way.
    expect(pages.map((p) => p.route)).toEqual(
      expect.arrayContaining(['/dashboard', '/history', '/calls/:callId', '/agents', '/agents/:id', '/approvals']),
    );
    expect(pages.map((p) => p.route)).toEqual(
      expect.arrayContaining(['/tools', '/tools/:name', '/tools/:name/edit', '/tools/promote', '/vault', '/audit']),
    );
    // Pages other features added, walked the same way without being listed here.
    expect(pages.map((p) => p.route)).toEqual(
      expect.arrayContaining(['/auth', '/blueprints', '/blueprints/:name', '/blueprints/import']),
    );
    const problems: string[] = [];
    mkdirSync(join(SCREENSHOTS, 'pages'), { recursive: true });
    for (const { route, address } of [...pages, { route: '/no-such-page', address: '/no-such-page' }]) {
      await page.setViewportSize(DESKTOP);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`${ui.origin}${address}`);
      problems.push(...describeProblems(address, await axeProblems(page)));
      const shot = join(SCREENSHOTS, 'pages', slug(route));
      await page.screenshot({ path: `${shot}-1280.png`, fullPage: true });
      await page.setViewportSize(PHONE);
      problems.push(...(await overflowing(page)).map((what) => `${address}: ${what} is wider than a 390 px phone`));
      problems.push(...describeProblems(`${address} (phone)`, await axeProblems(page, WIDTH_RULES)));
      await page.screenshot({ path: `${shot}-390.png`, fullPage: true });
      // Dark mode changes colours only: its pass checks the rules that depend on them.
      await page.setViewportSize(DESKTOP);
      await page.emulateMedia({ colorScheme: 'dark' });
      problems.push(...describeProblems(`${address} (dark)`, await axeProblems(page, COLOUR_RULES)));
      await page.screenshot({ path: `${shot}-1280-dark.png` });
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('answers an unknown address, and an unknown name or id on every route that takes one, with a 404 page in the same frame', async () => {
    const unknown = ['/no-such-page', '/tools/deploy/nothing-here'];
    for (const route of routerPaths())
      if (route.includes(':') && !route.startsWith('/static/')) {
        const bogus = Object.fromEntries(Object.keys(samples).map((key) => [key, `no-such-${key}`]));
        unknown.push(addressOf(route, bogus));
      }
    for (const address of unknown) {
      const response = await page.goto(`${ui.origin}${address}`);
      expect(response?.status(), address).toBe(404);
      expect(await page.locator('header.top nav a').count(), address).toBeGreaterThan(5);
      expect(await page.locator('main h1').count(), address).toBe(1);
      expect(await page.title(), address).toBe('Not found · factorly');
    }
  });
});

describe('moving around by keyboard', () => {
  it('skips to the content first, and shows where the focus is', async () => {
    await page.goto(`${ui.origin}/history`);
    await page.keyboard.press('Tab');
    const skip = page.locator(':focus');
    expect(await skip.innerText()).toBe('Skip to content');
    expect(await skip.isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.locator(':focus').getAttribute('id')).toBe('main');
    await page.keyboard.press('Tab');
    type Styles = { getComputedStyle: (element: unknown) => { outlineStyle: string } };
    const outline = await page
      .locator(':focus')
      .evaluate((element) => (globalThis as unknown as Styles).getComputedStyle(element).outlineStyle);
    expect(outline).toBe('solid');
  });
});

describe('forms that say what they need', () => {
  it('offers an enum param as a required choice, and warns before trying a denied tool', async () => {
    await page.goto(`${ui.origin}/tools/deploy`);
    const env = page.locator('form.try select[name="param.env"]');
    expect(await env.locator('option').allInnerTexts()).toEqual(['choose…', 'staging', 'prod']);
    expect(await env.getAttribute('required')).toBe('');
    expect(await page.locator('form.try input[name="param.env"]').count()).toBe(0);
    // The browser will not send the form without a choice.
    await page.click('form.try button[type="submit"]');
    const missing = (select: unknown) => (select as { validity: { valueMissing: boolean } }).validity.valueMissing;
    expect(await env.evaluate(missing)).toBe(true);
    expect(page.url()).toBe(`${ui.origin}/tools/deploy`);

    await page.goto(`${ui.origin}/tools/forbidden`);
    expect(await page.locator('section', { hasText: 'Try it' }).locator('.notice-warn').innerText()).toBe(
      'Every call of this tool is denied by its shadow rules: Run records a blocked call and runs nothing.',
    );
    await page.goto(`${ui.origin}/tools/say`);
    expect(await page.locator('.notice-warn').count()).toBe(0);
  });

  it('shows the whole YAML error of a shadow block, with the lines it points at', async () => {
    await page.goto(`${ui.origin}/tools/say/edit`);
    await page.fill('textarea[name="shadow"]', 'deny: [\nconfirm: true');
    const [saved] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('form.edit button[type="submit"]'),
    ]);
    expect(saved.status()).toBe(400);
    const alert = page.getByRole('alert');
    expect(await alert.locator('p').allInnerTexts()).toEqual([
      'Nothing was written:',
      'shadow: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:',
    ]);
    expect(await alert.locator('pre').innerText()).toBe('deny: [\nconfirm: true\n^');
  });
});
