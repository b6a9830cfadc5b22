import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallGateway } from 'factorly';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import type { CatalogChange } from '../../src/config/config-watch.js';
import {
  bundledBlueprints,
  describeBlueprint,
  installBlueprint,
  installedBlueprints,
  uninstallBlueprint,
} from '../../src/cli/blueprints/install.js';
import { planBlueprint } from '../../src/cli/blueprints/plan.js';
import { parseSets } from '../../src/cli/blueprints/text.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { blueprintKernel, type BlueprintKernel } from '../helpers/blueprint-kernel.js';
import { eventsOf } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

const ACME = `name: acme
version: "0.3"
description: The Acme API
auth_type: bearer
requires:
  vault_keys: [ACME_TOKEN]
tools:
  acme.list:
    type: rest
    description: List things
    base_url: https://api.acme.test/v1
    method: GET
    path: /things
    auth: { type: bearer, token: "{{vault:ACME_TOKEN}}" }
`;

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/acme.yaml') res.end(ACME);
    else res.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

let started: BlueprintKernel | undefined;
afterEach(async () => {
  await started?.kernel.stop();
  started = undefined;
});
async function start(config?: string): Promise<BlueprintKernel & { root: string }> {
  const root = tempProject();
  started = await blueprintKernel(root, config);
  return { ...started, root };
}
const where = (root: string) => ({ cwd: root });

describe('blueprint install', () => {
  it('installs a bundled blueprint pointed at another host, keeps its lines, stores keys and records it', async () => {
    const { kernel, log, root } = await start();
    const plan = await planBlueprint(
      kernel,
      { source: 'github', set: parseSets(['base_url=http://127.0.0.1:1/gh']) },
      where(root),
    );
    expect(plan).toMatchObject({
      name: 'github',
      file: '.factorly/blueprints/github.yaml',
      source: 'bundled:github',
      conflicts: [],
      missing: [],
      problems: [],
      vaultKeyStates: [{ key: 'GITHUB_TOKEN', present: false }],
      hosts: [{ host: '127.0.0.1:1', uses: expect.arrayContaining(['tool github.search_issues']) }],
    });
    expect(plan.tools.filter((tool) => tool.confirm).map((tool) => tool.name)).toEqual([
      'github.create_issue',
      'github.comment_issue',
    ]);
    const result = await installBlueprint(kernel, plan, { GITHUB_TOKEN: 'ghp_secret_value_1' });
    expect(result).toMatchObject({ stored: ['GITHUB_TOKEN'], missingKeys: [] });
    const written = readFileSync(join(root, plan.file), 'utf8');
    const bundled = readFileSync(join(import.meta.dirname, '..', '..', 'blueprints', 'github.yaml'), 'utf8');
    // Every line where the author put it: only the base URLs differ, and the record comes last.
    expect(written.split('\n').length).toBe(bundled.split('\n').length + 2);
    expect(written).toContain('base_url: "http://127.0.0.1:1/gh"');
    expect(written).not.toContain('https://api.github.com');
    expect(written.trimEnd().split('\n').slice(-2)).toEqual([
      '# factorly blueprint: installed from bundled:github',
      '# factorly blueprint: set base_url=http://127.0.0.1:1/gh',
    ]);
    expect(await kernel.backends.get('vault')!.resolve('GITHUB_TOKEN')).toBe('ghp_secret_value_1');
    const events = await eventsOf(log);
    expect(events.map((event) => event.type)).toEqual(['vault.accessed', 'blueprint.installed']);
    expect(events[1].data).toMatchObject({
      name: 'github',
      source: 'bundled:github',
      hosts: ['127.0.0.1:1'],
      set: { base_url: 'http://127.0.0.1:1/gh' },
      stored: ['GITHUB_TOKEN'],
    });
    expect(JSON.stringify(events)).not.toContain('ghp_secret_value_1');
    await kernel.reload();
    expect(kernel.registry.get('github.create_issue')?.shadow).toEqual({ confirm: true });
  });

  it('refuses a name the config has, a missing requirement and a second install, writing nothing', async () => {
    const { kernel, root } = await start(
      'tools:\n  acme.list: {type: rest, base_url: https://x.test, method: GET}\noauth_providers:\n  acme: {client_id: x, issuer: https://id.acme.test}\n',
    );
    const text = `${ACME.replace('vault_keys: [ACME_TOKEN]', 'vault_keys: [ACME_TOKEN]\n  tools: [jira.search]')}oauth_providers:\n  acme: {client_id: y, issuer: https://id.acme.test}\n`;
    const plan = await planBlueprint(kernel, { text, label: 'acme.yaml' }, where(root));
    expect(plan.conflicts).toEqual([
      'tool "acme.list" already defined in .factorly/factorly.yaml:2',
      'oauth provider "acme" already defined',
    ]);
    expect(plan.missing).toEqual(['tool "jira.search"']);
    await expect(installBlueprint(kernel, plan)).rejects.toMatchObject({
      code: 'BLUEPRINT_REFUSED',
      message: expect.stringContaining('conflict: tool "acme.list" already defined in .factorly/factorly.yaml:2'),
    });
    expect(existsSync(join(root, '.factorly', 'blueprints'))).toBe(false);
    const other = await planBlueprint(kernel, { source: 'github' }, where(root));
    await installBlueprint(kernel, other);
    const again = await planBlueprint(kernel, { source: 'github' }, where(root));
    expect(again).toMatchObject({ alreadyInstalled: true, conflicts: [] });
    await expect(installBlueprint(kernel, again)).rejects.toThrow(
      "Already installed — uninstall first with 'factorly blueprint uninstall github'.",
    );
  });

  it('names a problem the loader finds with the blueprint’s own file and line', async () => {
    const { kernel, root } = await start();
    const plan = await planBlueprint(
      kernel,
      { text: ACME.replace('method: GET', 'method: FETCH'), label: 'acme.yaml' },
      where(root),
    );
    expect(plan.problems).toEqual([
      'config: tool "acme.list" has unknown method "FETCH" (valid: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS) (acme.yaml:8)',
    ]);
  });

  it('fetches a URL through the SSRF guard', async () => {
    const { kernel, root } = await start();
    await expect(planBlueprint(kernel, { source: `${url}/acme.yaml` }, where(root))).rejects.toThrow(
      'URL blocked by safety guard: localhost access denied (127.0.0.1; use shadow.allow_urls to allow it)',
    );
    const plan = await planBlueprint(kernel, { source: `${url}/acme.yaml` }, { ...where(root), allowUrls: [url] });
    expect(plan).toMatchObject({ name: 'acme', source: `${url}/acme.yaml`, hosts: [{ host: 'api.acme.test' }] });
    await expect(
      planBlueprint(kernel, { source: `${url}/nope.yaml` }, { ...where(root), allowUrls: [url] }),
    ).rejects.toThrow(`${url}/nope.yaml answered 404 Not Found`);
    await expect(planBlueprint(kernel, { source: 'gihtub' }, where(root))).rejects.toThrow(
      'no bundled blueprint "gihtub"; did you mean "github"?',
    );
    // A host the person must give: installed only with --set.
    expect((await planBlueprint(kernel, { source: 'jira' }, where(root))).problems).toEqual([
      "base_url is https://<your-site>.atlassian.net/rest/api/3: install with --set base_url=<your own URL> (see the blueprint's auth guide)",
    ]);
    expect(() => parseSets(['token=x'])).toThrow(
      '--set "token=x": the key must be one of base_url, url, auth_url, token_url, issuer',
    );
    await expect(
      planBlueprint(kernel, { source: 'github', set: { auth_url: 'https://x.test' } }, where(root)),
    ).rejects.toThrow('--set auth_url: blueprint "github" has no auth_url (on its OAuth providers)');
  });
});

describe('installed blueprints', () => {
  it('lists, shows and uninstalls, keeping the vault keys', async () => {
    const { kernel, log, root } = await start();
    expect(bundledBlueprints(kernel).length).toBeGreaterThanOrEqual(12);
    await installBlueprint(kernel, await planBlueprint(kernel, { text: ACME, label: 'acme.yaml' }, where(root)), {
      ACME_TOKEN: 'acme-secret-1',
    });
    expect(installedBlueprints(kernel)).toEqual([
      expect.objectContaining({
        name: 'acme',
        version: '0.3',
        source: 'acme.yaml',
        file: '.factorly/blueprints/acme.yaml',
      }),
    ]);
    const shown = await describeBlueprint(kernel, 'acme');
    expect(shown).toMatchObject({
      tools: [{ name: 'acme.list', endpoint: 'GET /things', confirm: false }],
      vaultKeyStates: [{ key: 'ACME_TOKEN', present: true }],
    });
    expect((await describeBlueprint(kernel, 'slack')).installed).toBe(false);
    await expect(uninstallBlueprint(kernel, 'acm')).rejects.toThrow(
      'no installed blueprint "acm"; did you mean "acme"?',
    );
    await uninstallBlueprint(kernel, 'acme');
    expect(existsSync(join(root, '.factorly', 'blueprints', 'acme.yaml'))).toBe(false);
    expect(await kernel.backends.get('vault')!.resolve('ACME_TOKEN')).toBe('acme-secret-1');
    expect((await eventsOf(log)).at(-1)).toMatchObject({
      type: 'blueprint.uninstalled',
      data: { name: 'acme', tools: ['acme.list'] },
    });
  });

  it('is served by a running process as soon as it is written, blueprints folder made while serving', async () => {
    let gateway: CallGateway | undefined;
    const catcher = definePlugin({
      id: 'catch-gateway',
      apiVersion: '1',
      register(reg) {
        reg.registerInit({ deps: { gateway: reg.tokens.CallGateway }, init: (deps) => void (gateway = deps.gateway) });
      },
    });
    const root = tempProject();
    const { createKernel } = await import('../../src/kernel/kernel.js');
    const { inline } = await import('../helpers/kernel.js');
    const { plugin: rest } = await import('@factorly/plugin-provider-rest');
    writeFileSync(join(root, 'factorly.yaml'), 'tools: {}\n');
    const kernel: Kernel = await createKernel({
      cwd: root,
      globalDir: join(root, 'g'),
      inlinePlugins: [rest, catcher].map(inline),
    });
    try {
      const changes: CatalogChange[] = [];
      const changed = new Promise<void>((resolve) =>
        gateway!.watchTools((change) => {
          changes.push(change);
          resolve();
        }),
      );
      // A person installs from another terminal: the folder does not exist yet.
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(root, '.factorly', 'blueprints'), { recursive: true });
      writeFileSync(join(root, '.factorly', 'blueprints', 'acme.yaml'), ACME.replace(/auth: .*\n/, ''));
      await changed;
      expect(changes[0]).toEqual({ changed: true });
      expect(gateway!.tools().map((tool) => tool.name)).toContain('acme.list');
    } finally {
      await kernel.stop();
    }
  });
});
