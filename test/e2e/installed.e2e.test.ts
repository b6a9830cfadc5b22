import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPackage, installPacked, npm, pack, runAsync, type Installed } from '../helpers/installed.js';
import { REPO } from '../helpers/project.js';

// One packed tarball and one global install for the whole file: packing and installing are the slow part.
const FIXTURES = join(REPO, 'test', 'fixtures', 'plugins');
const EXAMPLES = ['amount-limit', 'upper-output', 'kit-engine', 'plain-http'] as const;
/** Every fixture with a contract suite of its own. */
const SUITES = [...EXAMPLES, 'echo-provider', 'param-guard'] as const;
let installed: Installed;

beforeAll(() => {
  installed = installPacked();
}, 300_000);

afterAll(() => {
  if (installed) rmSync(installed.work, { recursive: true, force: true });
});

const project = (name: string, yaml?: string): string => {
  const root = join(installed.work, name);
  mkdirSync(root, { recursive: true });
  if (yaml !== undefined) {
    mkdirSync(join(root, '.factorly'), { recursive: true });
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), yaml);
  }
  return root;
};

describe('factorly installed from its npm pack tarball', () => {
  it('is a command of its own, outside the checkout: init, call, a code tool, serve', async () => {
    expect(realpathSync(installed.bin).startsWith(REPO)).toBe(false);
    const root = project('tour');
    expect(installed.run(['init'], root)).toMatchObject({ status: 0 });
    expect(installed.run(['call', 'greet', '--name', 'Ada'], root)).toMatchObject({
      status: 0,
      stdout: 'Hello, Ada!\n',
    });
    const script =
      'async function run(p) { const r = await factorly.call("greet", { name: p.who }); return r.output.trim() + "!" }';
    const code = installed.run(['call', 'factorly.code', '--code', script, '--params', '{"who":"Bo"}'], root);
    expect(code.status, code.stderr).toBe(0);
    expect(code.stdout).toContain('Hello, Bo!!');
    const transport = new StdioClientTransport({
      command: installed.bin,
      args: ['serve'],
      cwd: root,
      env: installed.env,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'installed', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('greet');
      const result = await client.callTool({ name: 'greet', arguments: { name: 'Cy' } });
      expect(result.content).toEqual([{ type: 'text', text: 'Hello, Cy!\n' }]);
    } finally {
      await client.close();
    }
    const logs = installed.run(['logs', '--json'], root);
    expect(logs.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(4);
  });

  describe('third-party plugins, written outside the checkout against the installed package', () => {
    let author: string;
    beforeAll(() => {
      // A plugin project: `npm install -D <tarball>` gives it the SDK types and factorly/testing.
      author = project('author');
      writeFileSync(
        join(author, 'package.json'),
        JSON.stringify({ name: 'plugins-of-mine', private: true, type: 'module' }),
      );
      npm(['install', '--save-dev', installed.tarball], author, installed.env);
      const bundled = join(author, 'node_modules', 'factorly', 'node_modules');
      for (const name of SUITES) cpSync(join(FIXTURES, name), join(author, name), { recursive: true });
      // What `npm install ses` gives the engine (this machine has no registry); the kit comes with factorly.
      copyPackage('ses', bundled, join(author, 'kit-engine', 'node_modules'));
    }, 300_000);

    it.each(SUITES)(
      '%s passes its contract suite from factorly/testing (node:test)',
      async (name) => {
        const run = await runAsync(
          process.execPath,
          ['--test', '--test-timeout=60000'],
          join(author, name),
          installed.env,
        );
        // Every case ran and passed (node:test's summary), none skipped.
        const count = (what: string) => Number(new RegExp(`# ${what} (\\d+)`).exec(run.stdout)?.[1]);
        expect(count('tests'), run.stdout + run.stderr).toBeGreaterThan(0);
        expect(count('pass')).toBe(count('tests'));
        expect(run.status).toBe(0);
      },
      240_000,
    );

    it('each installs with `plugins install <tarball>` and works: a shadow.<key> rule, an engine, an output stage, an interface', async () => {
      for (const name of EXAMPLES) {
        const install = installed.run(
          ['plugins', 'install', pack(join(author, name), installed.work, installed.env)],
          author,
        );
        expect(install.status, install.stderr).toBe(0);
      }
      const root = project(
        'uses-plugins',
        [
          'tools:',
          '  pay:',
          '    type: cli',
          '    command: echo',
          '    args: ["paid {{amount}}"]',
          '    parameters: [{name: amount, type: number, required: true}]',
          '    upper: true',
          '    shadow: {max_amount: 100}',
          '  sum:',
          '    type: code',
          '    engine: kit',
          '    parameters: [{name: a, type: integer}, {name: b, type: integer}]',
          '    code: "async function run(p) { return p.a + p.b }"',
          '',
        ].join('\n'),
      );
      expect(installed.run(['call', 'pay', '--amount', '5'], root)).toMatchObject({ status: 0, stdout: 'PAID 5\n' });
      const over = installed.run(['call', 'pay', '--amount', '500'], root);
      expect(over.status).not.toBe(0);
      expect(over.stderr).toContain('amount-limit: "amount" is 500, over shadow.max_amount 100');
      expect(installed.run(['call', 'sum', '--a', '2', '--b', '3'], root)).toMatchObject({ status: 0, stdout: '5' });
      const inspected = JSON.parse(installed.run(['plugins', 'inspect', '--json'], root).stdout) as {
        id: string;
        status: string;
        source: string;
        contributes: Record<string, string[]>;
        config: Record<string, string[]>;
      }[];
      const byId = new Map(inspected.map((plugin) => [plugin.id, plugin]));
      expect(byId.get('amount-limit')).toMatchObject({
        status: 'loaded',
        source: 'user',
        contributes: { rules: ['amount-limit'] },
        config: { shadow: ['max_amount'] },
      });
      expect(byId.get('kit-engine')).toMatchObject({ status: 'loaded', contributes: { engines: ['kit'] } });
      expect(byId.get('upper-output')).toMatchObject({
        status: 'loaded',
        contributes: { outputProcessors: ['upper'] },
        config: { tool: ['upper'] },
      });
      expect(byId.get('plain-http')).toMatchObject({ status: 'loaded', contributes: { interfaces: ['plain-http'] } });
      await servesOverPlainHttp(root);
      // The rule's own key is checked with the rule's schema, naming the file and line.
      writeFileSync(
        join(root, '.factorly', 'factorly.yaml'),
        readFileSync(join(root, '.factorly', 'factorly.yaml'), 'utf8').replace('max_amount: 100', 'max_amount: -1'),
      );
      const bad = installed.run(['call', 'pay', '--amount', '5'], root);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/max_amount[\s\S]*factorly\.yaml:8/);
    }, 300_000);

    it('refuses a plugin tarball built for another plugin API, naming both versions', () => {
      const copy = join(installed.work, 'future-api');
      cpSync(join(FIXTURES, 'future-api'), copy, { recursive: true });
      const install = installed.run(['plugins', 'install', pack(copy, installed.work, installed.env)], author);
      expect(install.status).not.toBe(0);
      expect(install.stderr).toContain(
        'plugin package "factorly-plugin-future-fixture@9.0.0" targets plugin API 2, but this factorly provides plugin API 1; not installed',
      );
      expect(installed.run(['plugins', 'inspect', '--json'], author).stdout).not.toContain('future');
    });
  });
});

/** `serve --interface plain-http` from the installed copy: a call through it, then SIGTERM ends it cleanly. */
async function servesOverPlainHttp(root: string): Promise<void> {
  const child = spawn(installed.bin, ['serve', '--interface', 'plain-http', '--port', '0'], {
    cwd: root,
    env: installed.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /plain-http: listening on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  const response = await fetch(`${url}call/pay`, { method: 'POST', body: JSON.stringify({ amount: 7 }) });
  expect(await response.json()).toMatchObject({ status: 'success', output: 'PAID 7\n' });
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
}
