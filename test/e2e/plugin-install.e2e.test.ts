import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked, pack, runAsync, type Installed } from '../helpers/installed.js';
import { REPO, type CliRun } from '../helpers/project.js';
import { startRegistryStub, type RegistryStub } from '../helpers/registry-stub.js';

// One packed factorly, installed globally into a temp prefix (HOME and XDG dirs there too), for the
// whole file: packing and installing are the slow part.
const FIXTURES = join(REPO, 'test', 'fixtures', 'sdk-plugins');
let installed: Installed;
let registry: RegistryStub;
let plugins: string;
let dataDir: string;

beforeAll(async () => {
  installed = installPacked();
  dataDir = join(installed.env.XDG_DATA_HOME, 'factorly');
  plugins = join(installed.work, 'plugins');
  cpSync(FIXTURES, plugins, { recursive: true });
  // An unrelated `factorly` in a node_modules above every plugin (the data dir, an author's project).
  const decoy = join(installed.work, 'node_modules', 'factorly');
  mkdirSync(decoy, { recursive: true });
  writeFileSync(
    join(decoy, 'package.json'),
    JSON.stringify({
      name: 'factorly',
      version: '6.6.6',
      type: 'module',
      main: 'index.js',
      exports: { '.': './index.js', './*': './index.js' },
    }),
  );
  writeFileSync(join(decoy, 'index.js'), "throw new Error('the decoy factorly was imported');\n");
  registry = await startRegistryStub();
  for (const name of ['sdk-rule', 'not-a-plugin'])
    registry.publish(pack(join(plugins, name), installed.work, installed.env));
}, 300_000);

afterAll(async () => {
  await registry?.close();
  if (installed) rmSync(installed.work, { recursive: true, force: true });
}, 120_000);

/**
 * The installed factorly, able to reach the stub registry (and only it). Asynchronous: the stub
 * answers from this process, which a synchronous spawn would block.
 */
const online = (args: string[], cwd: string): Promise<CliRun> =>
  runAsync(installed.bin, args, cwd, {
    ...installed.env,
    npm_config_offline: 'false',
    npm_config_registry: `${registry.url}/`,
  });

const project = (name: string, yaml: string): string => {
  const root = join(installed.work, name);
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(join(root, '.factorly', 'factorly.yaml'), yaml);
  return root;
};

const YAML = [
  'tools:',
  '  say:',
  '    type: cli',
  '    command: echo',
  '    args: ["{{word}}"]',
  '    parameters: [{name: word, type: string, required: true}]',
  '  shout:',
  '    type: shout',
  '    parameters: [{name: text, type: string, required: true}]',
  '  sum:',
  '    type: code',
  '    engine: vm',
  '    parameters: [{name: a, type: integer}, {name: b, type: integer}]',
  '    code: "async function run(p) { return p.a + p.b }"',
  '',
].join('\n');

describe('plugins that import factorly, installed into factorly installed from its tarball', () => {
  it('a rule from the registry, a tool type from a directory, an engine from a tarball: each resolves the running factorly', async () => {
    const rule = await online(['plugins', 'install', 'factorly-plugin-sdk-rule'], installed.work);
    expect(rule.status, rule.stderr).toBe(0);
    const provider = installed.run(['plugins', 'install', join(plugins, 'sdk-provider')], installed.work);
    expect(provider.status, provider.stderr).toBe(0);
    const engine = pack(join(plugins, 'vm-engine'), installed.work, installed.env);
    expect(installed.run(['plugins', 'install', engine], installed.work)).toMatchObject({ status: 0 });
    // The peer dependencies on factorly were never fetched: no request for it, nothing of it installed.
    expect(registry.requests).toContain('/factorly-plugin-sdk-rule');
    expect(registry.requests.filter((path) => path === '/factorly' || path.startsWith('/factorly/'))).toEqual([]);
    expect(existsSync(join(dataDir, 'node_modules', 'factorly'))).toBe(false);
    expect(existsSync(join(dataDir, 'node_modules', 'factorly-plugin-sdk-rule', 'plugin.js'))).toBe(true);

    const root = project('uses-sdk-plugins', YAML);
    // Twice: oclif's start, then the launcher's fast path from the plugin list oclif recorded.
    for (let round = 0; round < 2; round++) {
      const go = installed.run(['call', 'say', '--word', 'go'], root);
      expect(go, go.stderr).toMatchObject({ status: 0, stdout: 'go\n' });
      expect(go.stderr).not.toContain('not loaded');
      const stop = installed.run(['call', 'say', '--word', 'stop'], root);
      expect(stop.status).not.toBe(0);
      expect(stop.stderr).toContain('sdk-rule: sdk-rule.STOPPED (true)');
      expect(installed.run(['call', 'shout', '--text', 'hi'], root)).toMatchObject({ status: 0, stdout: 'HI!' });
      expect(installed.run(['call', 'sum', '--a', '2', '--b', '3'], root)).toMatchObject({ status: 0, stdout: '5' });
    }
    // Found by id or by package name.
    const byPackage = JSON.parse(
      installed.run(['plugins', 'inspect', 'factorly-plugin-vm-engine', '--json'], root).stdout,
    );
    expect(byPackage).toMatchObject({
      id: 'vm-engine',
      status: 'loaded',
      source: 'user',
      contributes: { engines: ['vm'] },
    });
    const byId = JSON.parse(installed.run(['plugins', 'inspect', 'sdk-rule', '--json'], root).stdout);
    expect(byId).toMatchObject({ status: 'loaded', contributes: { rules: ['no-stop'] } });
  }, 600_000);

  it('a linked plugin resolves the running factorly too; a module-level apiVersion mismatch is listed by its id', () => {
    const linked = join(plugins, 'sdk-linked');
    cpSync(join(plugins, 'sdk-provider'), linked, { recursive: true });
    const manifest = join(linked, 'package.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('sdk-provider', 'sdk-linked'));
    const code = join(linked, 'plugin.js');
    writeFileSync(
      code,
      readFileSync(code, 'utf8')
        .replace("id: 'sdk-provider'", "id: 'sdk-linked'")
        .replace(/'shout'/g, "'murmur'"),
    );
    for (const dir of [linked, join(plugins, 'module-api')])
      expect(installed.run(['plugins', 'link', '--no-install', dir], installed.work)).toMatchObject({ status: 0 });
    const root = project(
      'uses-linked',
      'tools:\n  m:\n    type: murmur\n    parameters: [{name: text, type: string}]\n',
    );
    expect(installed.run(['call', 'm', '--text', 'psst'], root)).toMatchObject({ status: 0, stdout: 'PSST!' });
    const failed = JSON.parse(installed.run(['plugins', 'inspect', 'module-api', '--json'], root).stdout);
    expect(failed).toMatchObject({ id: 'module-api', status: 'failed', code: 'PLUGIN_API_MISMATCH' });
    expect(failed.reason).toContain('plugin "module-api" targets plugin API 2');
  }, 300_000);

  it('refuses a package with no "factorly" key before any of its scripts run: a tarball, a directory, a registry name', async () => {
    const marker = join(installed.env.HOME, 'preinstall-ran');
    const dir = join(plugins, 'not-a-plugin');
    const tarball = pack(dir, installed.work, { ...installed.env, npm_config_ignore_scripts: 'true' });
    for (const run of [
      async () => installed.run(['plugins', 'install', tarball], installed.work),
      async () => installed.run(['plugins', 'install', dir], installed.work),
      () => online(['plugins', 'install', 'not-a-factorly-plugin'], installed.work),
    ]) {
      const refused = await run();
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain(
        'plugin package "not-a-factorly-plugin@1.0.0" has no "factorly" key in its package.json, so it is no factorly plugin; not installed',
      );
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(join(dataDir, 'node_modules', 'not-a-factorly-plugin'))).toBe(false);
    }
  }, 300_000);
});
