import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from 'factorly/events';
import {
  cli,
  events,
  launchChromium,
  project,
  shoot as shootPage,
  startUi,
  type RunningUi,
  DESKTOP,
} from './harness.js';

const YAML = `tools:
  deploy:
    type: cli
    command: echo
    args: ["deployed {{env}}"]
    parameters:
      - name: env
        required: true
    shadow: {confirm: true}
  say:
    type: cli
    command: echo
    args: ["{{text}}"]
`;
const SCRIPT =
  'async function run(p) { const said = await factorly.call("say", { text: p.who }); return `hi ${said.output.trim()}`; }';

let ui: RunningUi;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const proj = project({ '.factorly/factorly.yaml': YAML });

const shoot = (name: string): Promise<void> => shootPage(page, name);

beforeAll(async () => {
  [ui, browser] = await Promise.all([startUi(proj.root), launchChromium()]);
  context = await browser.newContext({ viewport: DESKTOP });
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  expect(await ui?.stop()).toBe(0);
  proj.remove();
});

describe('factorly ui in a browser', () => {
  it('shows a script run live, saves it as a tool past a name collision, and calls it with Try it', async () => {
    await page.goto(ui.url);
    expect(page.url()).toBe(`${ui.origin}/dashboard`);
    await page.goto(`${ui.origin}/history`);
    await page.evaluate(() => ((globalThis as unknown as { loadedOnce: boolean }).loadedOnce = true));

    const run = cli(['call', 'factorly.code', '--code', SCRIPT, '--params', '{"who":"world"}'], proj.root);
    const row = page
      .locator('#history-rows tr', { hasText: 'factorly.code' })
      .filter({ has: page.locator('.badge-success') });
    await row.waitFor({ timeout: 30_000 });
    expect(await run).toMatchObject({ status: 0, stdout: 'hi world' });
    // The row arrived over the event stream: the page was never reloaded.
    expect(await page.evaluate(() => (globalThis as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    await expect.poll(() => page.locator('#history-rows tr', { hasText: 'say' }).locator('.inner').count()).toBe(1);
    await shoot('history');

    await row.locator('.t-tool a').click();
    await page.waitForURL(/\/calls\/[0-9a-f-]{36}$/);
    expect(await page.locator('.wf-name').allInnerTexts()).toEqual(['factorly.code', 'say']);
    expect(await page.locator('.depth-0 > .detail pre.output').innerText()).toBe('hi world');
    expect(await page.locator('.depth-0 > .detail pre.code').innerText()).toBe(SCRIPT);
    await shoot('call');
    await page.getByRole('link', { name: 'Save as tool' }).click();
    await page.waitForURL(/\/tools\/promote\?from-sha=[0-9a-f]{64}$/);
    await expect.poll(() => page.locator('pre.code').textContent()).toBe(SCRIPT);
    expect(await page.locator('table.params tbody').innerText()).toBe('who\tstring\t"world"');
    await shoot('promote');

    await page.fill('input[name="name"]', 'deploy');
    await page.uncheck('input[name="confirm"]');
    const [collision] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('button[type="submit"]'),
    ]);
    expect(collision.status()).toBe(409);
    expect(await page.getByRole('alert').innerText()).toBe(
      `tool "deploy" already exists (check 'overwrite' to replace it)`,
    );
    expect(await page.isChecked('input[name="confirm"]')).toBe(false);

    await page.fill('input[name="name"]', 'greet.world');
    await page.click('button[type="submit"]');
    await page.waitForURL(`${ui.origin}/tools/greet.world/edit?promoted=1`);
    expect(await page.locator('h1').innerText()).toBe('Edit greet.world code');
    expect(await page.getByRole('status').innerText()).toMatch(
      /^Saved as a tool in \.factorly\/greet\.world\.yaml\. Polish/,
    );
    await page.goto(`${ui.origin}/tools/greet.world`);
    expect(await page.locator('h1').innerText()).toBe('greet.world code');
    expect(await page.locator('pre.code').innerText()).toContain('greet.world:\n  type: code');

    await page.fill('input[name="param.who"]', 'ui');
    await page.click('form.try button[type="submit"]');
    await expect.poll(() => page.locator('#try-result').innerText()).toContain('hi ui');
    await shoot('tool');

    await page.goto(`${ui.origin}/history`);
    const tried = page.locator('#history-rows tr', { hasText: 'greet.world' });
    expect(await tried.locator('.t-iface').innerText()).toBe('ui');
    expect(await tried.locator('.badge').first().innerText()).toBe('success');
    await page.goto(`${ui.origin}/history?iface=ui`);
    expect(await page.locator('#history-rows .t-tool a:not(.inner)').allInnerTexts()).toEqual(['greet.world']);
    await page.goto(`${ui.origin}/history?tool=say&status=success`);
    expect(await page.locator('#history-rows .t-tool a:not(.inner)').allInnerTexts()).toEqual(['say', 'say']);
    await page.goto(`${ui.origin}/tools`);
    await shoot('tools');
  }, 90_000);

  it('approves one waiting CLI call and denies another; the CLI prompt without a terminal does not win', async () => {
    await page.goto(`${ui.origin}/tools/deploy`);
    expect(await page.locator('dl.rules dt').allInnerTexts()).toEqual(['confirm']);
    expect(await page.locator('dl.rules dd').allInnerTexts()).toEqual(['true']);
    expect(await page.getByText('This tool asks before each call').count()).toBe(1);
    await page.goto(`${ui.origin}/approvals`);
    const prod = cli(['call', 'deploy', '--env', 'prod'], proj.root);
    const staging = cli(['call', 'deploy', '--env', 'staging'], proj.root);
    const cards = page.locator('#approvals-list .approval');
    await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(2);
    expect(await page.locator('#pending-count').innerText()).toBe('2');
    await shoot('approvals');

    await cards.filter({ hasText: '"prod"' }).getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(/answered=approved/);
    await cards.filter({ hasText: '"staging"' }).getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(/answered=denied/);
    // Without a terminal each call said where it waits, then how it ended.
    const where = new RegExp(
      `^⏳ Tool "deploy" waits for approval: approve or deny it at ${ui.origin}/approvals \\(the factorly ui of this project\\); declined at \\d\\d:\\d\\d:\\d\\d UTC if nobody answers\\.\\n`,
    );
    expect(await prod).toMatchObject({ status: 0, stdout: 'deployed prod\n', stderr: expect.stringMatching(where) });
    expect(await staging).toMatchObject({ status: 1, stderr: expect.stringMatching(where) });
    expect((await staging).stderr.replace(where, '')).toBe('tool "deploy": confirmation declined\n');
    expect(await page.locator('#pending-count').innerText()).toBe('0');

    const resolved = (await events(proj.root)).filter((e) => e.type === 'confirm.resolved').map((e) => e.data);
    expect(resolved).toEqual([
      expect.objectContaining({ channel: 'ui', approved: true, by: 'ui' }),
      expect.objectContaining({ channel: 'ui', approved: false, by: 'ui' }),
    ]);
  }, 60_000);

  it('answers factorly.ask questions: an answer that does not fit keeps the question, one that fits reaches the caller sealed; dismiss cancels', async () => {
    await page.goto(ui.url);
    await page.goto(`${ui.origin}/approvals`);
    const asked = cli(
      ['call', 'factorly.ask', '--name', 'replicas', '--description', 'How many replicas?', '--type', 'integer'],
      proj.root,
    );
    const card = page.locator('#approvals-list .approval', { hasText: 'How many replicas?' });
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('label').innerText()).toMatch(/^replicas\s+integer · required$/);
    await shoot('ask');
    await card.locator('input[name="answer"]').fill('many');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      card.getByRole('button', { name: 'Answer' }).click(),
    ]);
    expect(refused.status()).toBe(400);
    expect(await page.getByRole('alert').innerText()).toBe('Not answered: expected integer, got "many".');
    await card.locator('input[name="answer"]').fill('3');
    await card.getByRole('button', { name: 'Answer' }).click();
    await page.waitForURL(/answered=replied/);
    expect(await asked).toMatchObject({ status: 0, stdout: '3' });

    const dismissed = cli(['call', 'factorly.ask', '--name', 'region', '--choices', 'eu,us'], proj.root);
    const choice = page.locator('#approvals-list .approval', { hasText: 'region' });
    await choice.waitFor({ timeout: 30_000 });
    expect(await choice.locator('select[name="answer"] option').allInnerTexts()).toEqual(['eu', 'us']);
    await choice.getByRole('button', { name: 'Dismiss' }).click();
    await page.waitForURL(/answered=dismissed/);
    // Without a terminal the call said where its question waits, then how it ended.
    expect(await dismissed).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(
        new RegExp(
          `^⏳ Tool "factorly\\.ask" asks a question: answer it at ${ui.origin}/approvals \\(the factorly ui of this project\\); it stops waiting at \\d\\d:\\d\\d:\\d\\d UTC if nobody answers\\.\nfactorly\\.ask: user cancelled the prompt\n$`,
        ),
      ),
    });

    const all = await events(proj.root);
    const answered = all.filter((e) => e.type === 'ask.answered').map((e) => e.data);
    expect(answered).toEqual([
      {
        callId: expect.any(String),
        channel: 'ui',
        action: 'accept',
        sealed: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/),
        by: 'ui',
      },
      expect.objectContaining({ channel: 'ui', action: 'cancel' }),
    ]);
    expect(all.filter((e) => e.type === 'ask.resolved').map((e) => e.data)).toEqual([
      expect.objectContaining({ channel: 'ui', action: 'accept', answer: 3, by: 'ui' }),
      expect.objectContaining({ channel: 'ui', action: 'cancel', by: 'ui' }),
    ]);
  }, 60_000);

  it('shows why a recorded script cannot be saved and disables the form', async () => {
    // A run recorded with a script the code provider cannot compile (written to the log directly).
    const broken = 'async function run( { return 1; }';
    const sha = createHash('sha256').update(broken).digest('hex');
    const log = new LmdbEventLog({ path: join(proj.root, '.factorly', 'events.lmdb') });
    await log.append([
      { type: 'source.recorded', data: { sha, language: 'javascript', source: broken } },
      {
        type: 'call.requested',
        data: {
          callId: 'broken-run',
          rootId: 'broken-run',
          tool: 'factorly.code',
          params: { code: broken },
          iface: 'cli',
          sourceSha: sha,
        },
      },
    ]);
    await log.close();
    await page.goto(`${ui.origin}/tools/promote?from-sha=${sha.slice(0, 8)}`);
    expect(await page.getByRole('alert').innerText()).toMatch(
      /^script doesn't compile, refusing to write a broken tool: .+/,
    );
    expect(await page.isDisabled('form.promote button[type="submit"]')).toBe(true);
    await page.goto(`${ui.origin}/tools/promote?from-sha=abc`);
    expect(await page.getByRole('alert').innerText()).toBe('sha prefix "abc" is too short (need at least 4 hex chars)');
  });

  it('shows the chain status and stats, and exports the log', async () => {
    await page.goto(`${ui.origin}/audit`);
    expect(await page.locator('.chain h2').innerText()).toBe('Hash chain intact');
    const exported = await page.request.get(`${ui.origin}/audit/export`);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => e.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(await page.locator('.chain p').first().innerText()).toMatch(/^\d+ events verified\.$/);
    await shoot('audit');
  });
});

describe('factorly ui start-up', () => {
  it('names a port that is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await cli(['ui', '--port', String(port), '--no-open'], proj.root);
      expect(run).toMatchObject({
        status: 1,
        stderr: `Error: port ${port} on 127.0.0.1 is in use; pass --port with another port (0 picks a free one)\n`,
      });
    } finally {
      taken.close();
    }
  });
});

describe('factorly ui security', () => {
  it('refuses a request without the token, with a wrong token, or for another host', async () => {
    const bare = await fetch(`${ui.origin}/history`, { redirect: 'manual' });
    expect(bare.status).toBe(401);
    expect(await bare.text()).toBe(
      'unauthorized: open the address `factorly ui` printed (it carries the session token)',
    );
    expect((await fetch(`${ui.origin}/history?token=${'0'.repeat(32)}`, { redirect: 'manual' })).status).toBe(401);
    const rebound = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${ui.origin}/history`,
        { headers: { host: 'attacker.example:80', cookie: `factorly_session=${ui.token}` } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toEqual({
      status: 403,
      body: 'forbidden: Host "attacker.example:80" is not one this server answers to (see --allowed-host)',
    });
    const page = await fetch(`${ui.origin}/history`, { headers: { cookie: `factorly_session=${ui.token}` } });
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('refuses a cross-site form post from a page the session cookie travels with, and a post without the CSRF token', async () => {
    const before = (await events(proj.root)).length;
    // Another port on 127.0.0.1 is the same site, so the SameSite cookie is sent: the Origin check must hold.
    const attacker: Server = createServer((_, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${ui.origin}/approvals/any-call/approve"><input name="_csrf" value="guess"></form><script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const attackerOrigin = `http://127.0.0.1:${(attacker.address() as { port: number }).port}`;
    try {
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.goto(attackerOrigin),
      ]);
      expect(response.status()).toBe(403);
      expect(await response.text()).toBe(`forbidden: cross-site request from ${attackerOrigin}`);
    } finally {
      attacker.close();
    }
    const noCsrf = await fetch(`${ui.origin}/approvals/any-call/approve`, {
      method: 'POST',
      headers: {
        cookie: `factorly_session=${ui.token}`,
        origin: ui.origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '_csrf=guess',
      redirect: 'manual',
    });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.text()).toBe('forbidden: missing or wrong CSRF token (reload the page and try again)');
    expect((await events(proj.root)).length).toBe(before);
  });
});
