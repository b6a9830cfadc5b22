import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, events, project, shoot, type RunningUi, openUi, type OpenUi } from './harness.js';

const MAIN = `# Project tools. This comment must survive every edit.
tools:
  # Reads issues with the token kept in the vault.
  gh:
    type: cli
    command: echo
    args: ["issues", "{{vault:GITHUB_TOKEN}}"]
`;
const SCRIPT = 'async function run(p) { return `hello ${p.who}`; }';
const VAULT_ENV = { FACTORLY_VAULT_PASSWORD: 'correct horse battery staple' };
const FIRST_VALUE = 's3cret-first-4711';
const SECOND_VALUE = 's3cret-second-0815';

let ui: RunningUi;
let opened: OpenUi;
let page: Page;
const proj = project({ '.factorly/factorly.yaml': MAIN });
const mainFile = join(proj.root, '.factorly', 'factorly.yaml');

beforeAll(async () => {
  opened = await openUi(proj, { env: VAULT_ENV });
  ({ ui, page } = opened);
}, 60_000);

afterAll(async () => {
  expect(await opened?.close()).toBe(0);
});

async function add(key: string, value: string, tier: 'project' | 'global'): Promise<number> {
  await page.fill('form.add-key input[name="key"]', key);
  await page.fill('form.add-key input[name="value"]', value);
  await page.selectOption('form.add-key select[name="tier"]', tier);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.click('form.add-key button'),
  ]);
  return response.status();
}

describe('the vault page', () => {
  it('adds, replaces and deletes keys per tier through the vault backend, and never shows a value', async () => {
    await page.goto(`${ui.origin}/vault`);
    expect(await page.locator('#tier-project p').innerText()).toBe('No keys yet.');
    expect(await page.locator('#tier-global p').innerText()).toBe('No keys yet.');

    expect(await add('GITHUB_TOKEN', FIRST_VALUE, 'project')).toBe(303);
    expect(page.url()).toBe(`${ui.origin}/vault?stored=GITHUB_TOKEN&tier=project`);
    expect(await page.getByRole('status').innerText()).toBe('Stored GITHUB_TOKEN in the project vault.');
    expect(await page.locator('#key-project-GITHUB_TOKEN .t-uses').innerText()).toBe('1 tool: gh');

    expect(await add('GITHUB_TOKEN', 'another', 'project')).toBe(409);
    expect(await page.getByRole('alert').innerText()).toBe(
      'GITHUB_TOKEN is already in the project vault: use Replace on its row to change it',
    );

    expect(await add('DEPLOY_KEY', FIRST_VALUE, 'global')).toBe(303);
    expect(await page.locator('#key-global-DEPLOY_KEY .t-uses').innerText()).toBe('no tool');

    const row = page.locator('#key-project-GITHUB_TOKEN');
    await row.locator('summary', { hasText: 'Replace' }).click();
    await row.locator('input[name="value"]').fill(SECOND_VALUE);
    await row.locator('button', { hasText: 'Save' }).click();
    await page.waitForURL(/stored=GITHUB_TOKEN/);
    expect(await cli(['vault', 'get', 'GITHUB_TOKEN'], proj.root, VAULT_ENV)).toMatchObject({
      status: 0,
      stdout: SECOND_VALUE,
    });

    // Deleting asks first: the row's Delete… opens the question, its button deletes.
    const row2 = page.locator('#key-global-DEPLOY_KEY');
    expect(await row2.getByRole('button', { name: 'Delete DEPLOY_KEY' }).isVisible()).toBe(false);
    await row2.locator('summary', { hasText: 'Delete…' }).click();
    expect(await row2.locator('details.confirm-delete p').innerText()).toBe(
      'Delete DEPLOY_KEY from the global vault? This cannot be undone.',
    );
    await row2.getByRole('button', { name: 'Delete DEPLOY_KEY' }).click();
    await page.waitForURL(`${ui.origin}/vault?deleted=DEPLOY_KEY&tier=global`);
    expect(await page.getByRole('status').innerText()).toBe('Deleted DEPLOY_KEY from the global vault.');
    expect(await page.locator('#tier-global p').innerText()).toBe('No keys yet.');
    expect(await page.locator('table.keys td.t-key code').allInnerTexts()).toEqual(['GITHUB_TOKEN']);
    await shoot(page, 'vault');

    const html = await page.content();
    expect(html).not.toContain(FIRST_VALUE);
    expect(html).not.toContain(SECOND_VALUE);
    const log = await events(proj.root);
    const changes = log
      .filter((e) => e.type === 'vault.accessed' && ['set', 'delete'].includes(e.data.op))
      .map((e) => e.data);
    expect(changes).toEqual([
      { op: 'set', key: 'GITHUB_TOKEN', tier: 'project' },
      { op: 'set', key: 'DEPLOY_KEY', tier: 'global' },
      { op: 'set', key: 'GITHUB_TOKEN', tier: 'project' },
      { op: 'delete', key: 'DEPLOY_KEY', tier: 'global' },
    ]);
    const text = JSON.stringify(log);
    expect(text).not.toContain(FIRST_VALUE);
    expect(text).not.toContain(SECOND_VALUE);
  });

  it('refuses a delete without the CSRF token, and one that skipped the question', async () => {
    const response = await fetch(`${ui.origin}/vault/delete`, {
      method: 'POST',
      headers: {
        cookie: `factorly_session=${ui.token}`,
        origin: ui.origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'key=GITHUB_TOKEN&tier=project',
    });
    expect(response.status).toBe(403);
    await page.goto(`${ui.origin}/vault`);
    const csrf = (await page.locator('body').getAttribute('data-csrf'))!;
    const unasked = await page.request.post(`${ui.origin}/vault/delete`, {
      form: { _csrf: csrf, key: 'GITHUB_TOKEN', tier: 'project' },
      headers: { origin: ui.origin },
    });
    expect(unasked.status()).toBe(400);
    expect(await unasked.text()).toContain('deleting GITHUB_TOKEN needs its confirmation: use Delete… on its row');
    expect(await cli(['vault', 'list'], proj.root, VAULT_ENV)).toMatchObject({ status: 0, stdout: 'GITHUB_TOKEN\n' });
  });
});

describe('editing a tool', () => {
  it('saves a promoted tool’s description and parameter doc in place, keeping the file’s comments', async () => {
    expect(
      await cli(['call', 'factorly.code', '--code', SCRIPT, '--params', '{"who":"world"}'], proj.root),
    ).toMatchObject({ status: 0, stdout: 'hello world' });
    await page.goto(`${ui.origin}/history?tool=factorly.code`);
    await page.getByRole('link', { name: 'Save as tool' }).click();
    await page.fill('input[name="name"]', 'greet');
    await page.uncheck('input[name="confirm"]');
    await page.click('form.promote button[type="submit"]');
    await page.waitForURL(`${ui.origin}/tools/greet/edit?promoted=1`);

    // A person annotates the promoted file by hand; the UI reads it again.
    const file = join(proj.root, '.factorly', 'greet.yaml');
    const annotated = readFileSync(file, 'utf8')
      .replace('  code: |', '  # The greeting itself.\n  code: |')
      .replace('- name: who', '- name: who # whom to greet');
    writeFileSync(file, annotated);
    await page.goto(`${ui.origin}/tools/greet/edit`);
    await page.fill('textarea[name="description"]', 'Greets someone by name');
    await page.fill('input[name="p0.description"]', 'Who is greeted');
    await page.click('form.edit button[type="submit"]');
    await page.waitForURL(/\/tools\/greet\/edit\?saved=/);
    expect(await page.getByRole('status').innerText()).toBe(
      'Saved .factorly/greet.yaml (description, parameters.who.description); the tool is served with the change.',
    );
    expect(readFileSync(file, 'utf8')).toBe(
      annotated
        .replace(/ {2}description: .*\n/, '  description: Greets someone by name\n')
        .replace('      default: world\n', '      default: world\n      description: Who is greeted\n'),
    );
    await shoot(page, 'tool-edit');

    await page.goto(`${ui.origin}/tools/greet`);
    expect(await page.locator('main > p:not(.crumbs)').first().innerText()).toBe('Greets someone by name');
    expect(await page.locator('table.params tbody td').nth(4).innerText()).toBe('Who is greeted');
    const edited = (await events(proj.root)).filter((e) => e.type === 'tool.edited').map((e) => e.data);
    expect(edited).toEqual([
      { name: 'greet', file: '.factorly/greet.yaml', changed: ['description', 'parameters.who.description'] },
    ]);
  });

  it('writes nothing when the script does not compile or the shadow block is invalid, and says why', async () => {
    const file = join(proj.root, '.factorly', 'greet.yaml');
    const before = readFileSync(file, 'utf8');
    await page.goto(`${ui.origin}/tools/greet/edit`);
    await page.fill('textarea[name="code"]', 'async function run( { return 1; }');
    const [broken] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('form.edit button[type="submit"]'),
    ]);
    expect(broken.status()).toBe(400);
    expect(await page.getByRole('alert').innerText()).toMatch(/^Nothing was written:\n\nscript doesn't compile: .+/);
    expect(await page.inputValue('textarea[name="code"]')).toBe('async function run( { return 1; }');
    expect(readFileSync(file, 'utf8')).toBe(before);

    await page.goto(`${ui.origin}/tools/greet/edit`);
    await page.fill('textarea[name="shadow"]', 'rate_limit: 10/minn');
    await page.click('form.edit button[type="submit"]');
    expect(await page.getByRole('alert').innerText()).toContain(
      'config: tool "greet" has an invalid shadow.rate_limit: unknown unit "minn" in "10/minn"; did you mean "min"?',
    );
    await page.fill('input[name="p0.default"]', '');
    await page.selectOption('select[name="p0.type"]', 'integer');
    await page.fill('input[name="p0.default"]', 'many');
    await page.fill('textarea[name="shadow"]', '');
    await page.click('form.edit button[type="submit"]');
    expect(await page.getByRole('alert').innerText()).toBe(
      'Nothing was written:\n\nparameter "who" has an invalid default: expected integer, got "many"',
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('edits only the overlay keys of a built-in, into the main config file', async () => {
    await page.goto(`${ui.origin}/tools/factorly.code/edit`);
    expect(await page.locator('textarea[name="description"]').count()).toBe(0);
    expect(await page.locator('textarea[name="code"]').count()).toBe(0);
    await page.fill('textarea[name="shadow"]', '# scripts may call at most five tools\nmax_calls: 5');
    await page.fill('input[name="timeout"]', '20s');
    await page.click('form.edit button[type="submit"]');
    await page.waitForURL(/saved=/);
    expect(readFileSync(mainFile, 'utf8')).toBe(`${MAIN}  factorly.code:
    timeout: 20s
    shadow:
      # scripts may call at most five tools
      max_calls: 5
`);
    await page.goto(`${ui.origin}/tools/factorly.code`);
    expect(await page.locator('dl.rules').innerText()).toContain('max_calls\n5');
  });
});
