import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../../test/helpers/project.js';
import { cli, events, project, shoot, type RunningUi, openUi, type OpenUi } from './harness.js';

const VAULT_ENV = { FACTORLY_VAULT_PASSWORD: 'correct horse battery staple' };
const TOKEN = 'ghp_typed_in_the_browser_4711';

let ui: RunningUi;
let opened: OpenUi;
let page: Page;
const proj = project({ '.factorly/factorly.yaml': 'tools: {}\n' });

beforeAll(async () => {
  opened = await openUi(proj, { env: VAULT_ENV });
  ({ ui, page } = opened);
}, 60_000);

afterAll(async () => {
  expect(await opened?.close()).toBe(0);
});

const toolNames = async (): Promise<string[]> => {
  await page.goto(`${ui.origin}/tools`);
  return page.locator('ul.tools a').allInnerTexts();
};

describe('the Blueprints page', () => {
  it('shows a bundled blueprint, installs it with a credential typed once, serves its tools, and uninstalls it', async () => {
    await page.goto(`${ui.origin}/blueprints`);
    expect(await page.locator('#installed p').innerText()).toBe(
      'None installed yet: pick one below, or import an API.',
    );
    expect(await page.locator('#available tbody tr').count()).toBeGreaterThanOrEqual(12);
    await page.locator('#blueprint-github a').click();
    await page.waitForURL(`${ui.origin}/blueprints/github`);
    expect(await page.locator('h1').innerText()).toContain('GitHub');
    expect(await page.locator('ul.hosts').innerText()).toContain('api.github.com');
    expect(await page.locator('ul.keys').innerText()).toBe('GITHUB_TOKEN missing');
    expect(await page.locator('pre.guide').innerText()).toContain('fine-grained personal access token');
    expect(await page.locator('tr', { hasText: 'github.create_issue' }).innerText()).toContain('asks first');
    await shoot(page, 'blueprint-github');

    await page.fill('input[name="key.GITHUB_TOKEN"]', TOKEN);
    await page.click('form.install button[type="submit"]');
    await page.waitForURL(`${ui.origin}/blueprints?installed=github`);
    expect(await page.getByRole('status').innerText()).toBe('Installed github: its tools are served now.');
    expect(await page.locator('#installed #blueprint-github').innerText()).toContain('bundled:github');
    expect(await toolNames()).toContain('github.search_issues');
    expect(await cli(['vault', 'get', 'GITHUB_TOKEN'], proj.root, VAULT_ENV)).toMatchObject({ stdout: TOKEN });

    await page.goto(`${ui.origin}/blueprints/github`);
    expect(await page.locator('ul.keys').innerText()).toBe('GITHUB_TOKEN in the vault');
    await page.getByRole('button', { name: 'Uninstall' }).click();
    await page.waitForURL(`${ui.origin}/blueprints?uninstalled=github`);
    expect(await page.getByRole('status').innerText()).toBe('Uninstalled github. Its vault keys were kept.');
    expect(await toolNames()).not.toContain('github.search_issues');
    expect(existsSync(join(proj.root, '.factorly', 'blueprints', 'github.yaml'))).toBe(false);
    const recorded = await events(proj.root);
    expect(recorded.filter((e) => e.type.startsWith('blueprint.')).map((e) => e.type)).toEqual([
      'blueprint.installed',
      'blueprint.uninstalled',
    ]);
    expect(JSON.stringify(recorded)).not.toContain(TOKEN);
  });

  it('reviews a pasted blueprint and refuses one that carries a cli tool, naming its line', async () => {
    await page.goto(`${ui.origin}/blueprints`);
    await page.fill('form.paste textarea', 'name: evil\ntools:\n  evil.run: {type: cli, command: sh}\n');
    await page.click('form.paste button');
    expect(await page.getByRole('alert').innerText()).toBe(
      'blueprint: tool "evil.run" has type "cli": a blueprint brings only rest and mcp tools (nothing that runs on this machine) (pasted:3)',
    );
  });
});

describe('the Import page', () => {
  it('uploads Petstore, previews its operations, imports the ones picked, and serves them', async () => {
    await page.goto(`${ui.origin}/blueprints/import`);
    await page.setInputFiles('input[name="file"]', join(REPO, 'test', 'fixtures', 'openapi', 'petstore.yaml'));
    await page.fill('input[name="prefix"]', 'pets');
    await page.click('form.import button');
    await page.waitForURL(`${ui.origin}/blueprints/import/preview`);
    const rows = page.locator('table.operations tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).innerText()).toContain('POST /pets');
    await shoot(page, 'blueprint-import');
    await rows.nth(1).locator('input[type="checkbox"]').uncheck();
    await page.click('form.import-pick button[type="submit"]');
    await page.waitForURL(`${ui.origin}/blueprints?installed=pets`);
    const names = await toolNames();
    expect(names.filter((name) => name.startsWith('pets.'))).toEqual(['pets.listPets', 'pets.showPetById']);
    expect(readFileSync(join(proj.root, '.factorly', 'blueprints', 'pets.yaml'), 'utf8')).toContain(
      '# factorly blueprint: installed from openapi:petstore.yaml',
    );
  });
});
