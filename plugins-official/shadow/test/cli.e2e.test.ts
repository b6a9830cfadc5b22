import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly';
import { BIN, REPO, runCli, tempProject } from '../../../test/helpers/project.js';
import { projectEvents } from '../../../test/helpers/events.js';

const YAML = `tools:
  look:
    type: cli
    command: echo
    args: [seen]
    shadow: {loop: {warn: 2, block: 3}}
  drop:
    type: cli
    command: echo
    shadow: {deny: true}
  deploy:
    type: cli
    command: echo
    args: ["deployed {{env}}"]
    shadow: {confirm: true}
`;

const decided = (all: Recorded[]) =>
  all
    .filter((e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided')
    .map((e) => `${e.data.rule}:${e.data.decision}`);

/** Runs `factorly call` on a pseudo-terminal (util-linux `script`), typing `typed` into it. */
function callOnTerminal(root: string, args: string[], typed: string) {
  const command = [process.execPath, BIN, 'call', ...args].map((part) => `'${part}'`).join(' ');
  return spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: root,
    input: typed,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, XDG_DATA_HOME: join(root, '.xdg-data'), XDG_CONFIG_HOME: join(root, '.xdg-config') },
  });
}

describe('shadow rules through `factorly call`', () => {
  it('sees repeated identical calls from separate processes: warns, then blocks', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    const first = runCli(['call', 'look'], root);
    const second = runCli(['call', 'look'], root);
    const third = runCli(['call', 'look'], root);
    expect(first).toMatchObject({ status: 0, stdout: 'seen\n', stderr: '' });
    expect(second).toMatchObject({
      status: 0,
      stdout: 'seen\n',
      stderr: 'warning: tool "look": identical call repeated 2 times within 5m (possible agent loop)\n',
    });
    expect(third).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'tool "look" blocked: identical call repeated too many times (possible agent loop)\n',
    });
    expect(decided(await projectEvents(root))).toEqual([
      'loop-detection:allow',
      'loop-detection:warn',
      'loop-detection:loop_blocked',
    ]);
  });

  it('denies a denied tool with exit 1 and the policy message', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    expect(runCli(['call', 'drop'], root)).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'tool "drop" is denied by shadow policy\n',
    });
  });

  it('asks on the terminal: "y" runs the call, "n" declines it', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    const approved = callOnTerminal(root, ['deploy', '--env', 'prod'], 'y\n');
    expect(approved.status).toBe(0);
    expect(approved.stdout).toContain(
      '⚠ Tool "deploy" requires confirmation.\r\n  params: {"env":"prod"}\r\nProceed? (y/n): ',
    );
    expect(approved.stdout).toContain('deployed prod');
    const declined = callOnTerminal(root, ['deploy', '--env', 'prod'], 'n\n');
    expect(declined.status).toBe(1);
    expect(declined.stdout).toContain('tool "deploy": confirmation declined');
    const resolved = (await projectEvents(root)).filter((e) => e.type === 'confirm.resolved').map((e) => e.data);
    expect(resolved).toEqual([
      expect.objectContaining({ channel: 'cli-prompt', approved: true, by: 'cli-prompt' }),
      expect.objectContaining({ channel: 'cli-prompt', approved: false, by: 'cli-prompt' }),
    ]);
  });

  it('declines at once without a terminal (stdin piped or closed) and no UI, saying why', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    const run = runCli(['call', 'deploy', '--env', 'prod'], root, { input: 'y\n' });
    expect(run).toMatchObject({
      status: 1,
      stdout: '',
      stderr:
        'tool "deploy" requires confirmation but no confirm channel is available: no terminal to ask on (stdin is not a TTY); no factorly ui is running for this project (start `factorly ui` to approve calls on its Approvals page)\n',
    });
    const events = await projectEvents(root);
    expect(events.filter((e) => e.type.startsWith('confirm.'))).toEqual([]);
    expect(events.find((e) => e.type === 'call.completed')?.data).toMatchObject({ status: 'blocked' });
  });

  it('loads a third-party rule linked with `factorly plugins link` and lets it change decisions', async () => {
    const root = tempProject({
      '.factorly/factorly.yaml': 'tools:\n  sql:\n    type: cli\n    command: echo\n    args: ["{{query}}"]\n',
    });
    const drop = ['call', 'sql', '--query', 'DROP TABLE users'];
    expect(runCli(drop, root)).toMatchObject({ status: 0, stdout: 'DROP TABLE users\n' });
    const linked = runCli(
      ['plugins', 'link', '--no-install', join(REPO, 'test', 'fixtures', 'plugins', 'param-guard')],
      root,
    );
    expect(linked.status).toBe(0);
    expect(runCli(drop, root)).toMatchObject({
      status: 1,
      stderr: 'param-guard: "query" looks destructive (DROP TABLE)\n',
    });
    expect(runCli(['call', 'sql', '--query', 'select 1'], root)).toMatchObject({ status: 0, stdout: 'select 1\n' });
    const guard = (await projectEvents(root)).filter(
      (e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided' && e.data.rule === 'param-guard',
    );
    expect(guard.map((e) => [e.data.plugin, e.data.decision])).toEqual([
      ['param-guard-fixture', 'deny'],
      ['param-guard-fixture', 'allow'],
    ]);
  });
});
