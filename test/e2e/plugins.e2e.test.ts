import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { REPO, runCli, tempProject } from '../helpers/project.js';
import { projectEvents } from '../helpers/events.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'plugins');
const SAY = 'tools:\n  say:\n    type: echo\n    prefix: "got "\n    parameters: [{name: n, type: integer}]\n  hi: {type: cli, command: echo, args: [hi]}\n';

const pluginEvents = async (root: string): Promise<Recorded[]> => (await projectEvents(root)).filter((event) => event.type.startsWith('plugin.'));

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

  it('refuses a plugin for another API version before running its code, records why, and keeps working', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SAY.replace(/ {2}say:[\s\S]*?(?= {2}hi)/, '') });
    expect(runCli(['plugins', 'link', '--no-install', join(FIXTURES, 'future-api')], root).status).toBe(0);
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
  });
});
