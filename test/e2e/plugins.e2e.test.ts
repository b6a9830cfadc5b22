import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { pack } from '../helpers/installed.js';
import { REPO, runCli, tempProject } from '../helpers/project.js';
import { projectEvents } from '../helpers/events.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'plugins');
const SAY =
  'tools:\n  say:\n    type: echo\n    prefix: "got "\n    parameters: [{name: n, type: integer}]\n  hi: {type: cli, command: echo, args: [hi]}\n';

const pluginEvents = async (root: string): Promise<Recorded[]> =>
  (await projectEvents(root)).filter((event) => event.type.startsWith('plugin.'));

describe('plugins discovered through oclif', () => {
  it('loads a linked third-party plugin and uses the tool type it provides', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SAY });
    const before = runCli(['call', 'say', '--n', '4'], root);
    expect(before.stderr).toContain('config: tool "say" has unknown type "echo"');
    expect(runCli(['plugins', 'link', '--no-install', join(FIXTURES, 'echo-provider')], root).status).toBe(0);
    const after = runCli(['call', 'say', '--n', '4'], root);
    expect(after).toMatchObject({ status: 0, stdout: 'got {"n":4}' });
    const loaded = (await pluginEvents(root)).map((e) => e.data);
    expect(loaded).toContainEqual(expect.objectContaining({ id: 'echo-fixture', version: '1.2.3', source: 'link' }));
    expect(loaded).toContainEqual(expect.objectContaining({ id: 'provider-cli', source: 'core' }));
  });

  it('refuses to link a plugin for another API version, naming both versions', () => {
    const root = tempProject({ '.factorly/factorly.yaml': SAY });
    const link = runCli(['plugins', 'link', '--no-install', join(FIXTURES, 'future-api')], root);
    expect(link.status).not.toBe(0);
    expect(link.stderr).toContain(
      'plugin package "factorly-plugin-future-fixture@9.0.0" targets plugin API 2, but this factorly provides plugin API 1; not linked',
    );
    expect(runCli(['plugins', 'inspect', '--json'], root).stdout).not.toContain('future');
  });

  it('refuses a linked plugin whose package later targets another API before running its code, records why, and keeps working', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SAY.replace(/ {2}say:[\s\S]*?(?= {2}hi)/, '') });
    const copy = join(root, 'future');
    cpSync(join(FIXTURES, 'future-api'), copy, { recursive: true });
    const pkg = join(copy, 'package.json');
    const compatible = readFileSync(pkg, 'utf8');
    writeFileSync(pkg, compatible.replace('"apiVersion": "2"', '"apiVersion": "1"'));
    expect(runCli(['plugins', 'link', '--no-install', copy], root).status).toBe(0);
    // Updated in place after linking: the check at load time still refuses it.
    writeFileSync(pkg, compatible);
    const call = runCli(['call', 'hi'], root);
    expect(call.status).toBe(0);
    expect(call.stdout).toBe('hi\n');
    expect(call.stderr).toContain(
      'warning: plugin factorly-plugin-future-fixture not loaded: plugin package "factorly-plugin-future-fixture"',
    );
    expect(call.stderr).toContain('targets plugin API 2, but this factorly provides plugin API 1; it was not loaded');
    expect(call.stderr).not.toContain('was imported');
    const failed = (await pluginEvents(root)).filter((e) => e.type === 'plugin.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ id: 'factorly-plugin-future-fixture', code: 'PLUGIN_API_MISMATCH' });
    const inspected = JSON.parse(
      runCli(['plugins', 'inspect', 'factorly-plugin-future-fixture', '--json'], root).stdout,
    );
    expect(inspected).toMatchObject({ status: 'failed', code: 'PLUGIN_API_MISMATCH' });
  });

  it('inspect lists a plugin by id with its kind, contributions, tokens and config keys', () => {
    const root = tempProject({ '.factorly/factorly.yaml': SAY });
    expect(runCli(['plugins', 'link', '--no-install', join(FIXTURES, 'echo-provider')], root).status).toBe(0);
    const echo = JSON.parse(runCli(['plugins', 'inspect', 'echo-fixture', '--json'], root).stdout);
    expect(echo).toMatchObject({
      id: 'echo-fixture',
      source: 'link',
      status: 'loaded',
      version: '1.2.3',
      contributes: { toolTypes: ['echo'] },
    });
    const shadow = JSON.parse(runCli(['plugins', 'inspect', 'shadow', '--json'], root).stdout);
    expect(shadow.contributes.rules).toEqual(expect.arrayContaining(['deny', 'confirm', 'rate-limit']));
    expect(shadow.provides).toContain('shadow.policies');
    expect(shadow.config.shadow).toContain('deny');
    const text = runCli(['plugins', 'inspect', 'engine-quickjs'], root);
    expect(text.stdout).toMatch(/^engine-quickjs {2}loaded {2}core/);
    expect(text.stdout).toContain('engines: quickjs');
    const missing = runCli(['plugins', 'inspect', 'nope'], root);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('no plugin "nope" (plugins: builtins,');
  });

  it('serve --interface names the interfaces there are when asked for one that is not installed', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n' });
    const run = runCli(['serve', '--interface', 'telnet'], root);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('no "telnet" interface is installed (installed: mcp, ui)');
    const bad = runCli(['serve', '--interface', 'ui', '--set', 'novalue'], root);
    expect(bad.stderr).toContain('--set "novalue" must be key=value');
  });

  it('refuses a package given as a file: URL before installing it, when its engines.factorly excludes this factorly (npm pack reads it first, running no script)', () => {
    const root = tempProject({ '.factorly/factorly.yaml': SAY });
    const copy = join(root, 'echo');
    cpSync(join(FIXTURES, 'echo-provider'), copy, { recursive: true });
    const pkg = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
    writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...pkg, engines: { factorly: '>=9.0.0' } }));
    const tarball = pack(copy, root, process.env as Record<string, string>);
    const install = runCli(['plugins', 'install', `file:${tarball}`], root);
    expect(install.status).not.toBe(0);
    expect(install.stderr).toContain(
      'plugin package "factorly-plugin-echo-fixture@1.2.3" requires factorly >=9.0.0, but this is factorly 0.1.0; not installed',
    );
    expect(runCli(['plugins', 'inspect', '--json'], root).stdout).not.toContain('echo-fixture');
    expect(runCli(['call', 'say', '--n', '1'], root).stderr).toContain('unknown type "echo"');
  });
});
