import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open } from 'lmdb';
import { runCli, runCliFedSlowly, tempProject } from '../helpers/project.js';
import { projectEvents } from '../helpers/events.js';
import { CALL_SYNOPSIS } from '../../src/cli/call-args.js';

const TOOLS = `tools:
  count:
    type: cli
    command: echo
    args: ["{{n}}"]
    parameters: [{name: n, type: integer, required: true}]
  fail:
    type: cli
    command: sh
    args: ["-c", "echo nope >&2; exit 7"]
`;

describe('factorly CLI', () => {
  it('init, call, logs --json and logs verify work in a fresh directory', async () => {
    const root = tempProject({ '.gitignore': 'node_modules\n' });
    const init = runCli(['init'], root);
    expect(init.status).toBe(0);
    expect(readFileSync(join(root, '.gitignore'), 'utf8')).toBe(
      'node_modules\n# factorly runtime state\n.factorly/events.lmdb\n.factorly/events.lmdb-lock\n.factorly/vault.key\n',
    );
    expect(runCli(['init'], root)).toMatchObject({
      status: 2,
      stderr: 'Error: .factorly/factorly.yaml already exists\n',
    });
    expect(runCli(['call', 'greet', '--name', 'Ada'], root)).toMatchObject({ status: 0, stdout: 'Hello, Ada!\n' });
    const logs = runCli(['logs', '--json'], root);
    const [entry] = logs.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entry).toMatchObject({
      tool: 'greet',
      status: 'success',
      exit_code: 0,
      interface: 'cli',
      params: { name: 'Ada' },
      parent_id: null,
      source_sha: null,
    });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
    const types = (await projectEvents(root)).map((e) => e.type);
    // One plugin.loaded per official plugin, one tool.pinned per tool seen first (the built-ins
    // among them): how many there are is not this test's business. The process records itself and
    // its configuration first, pins what the call's catalogue shows, and signs a checkpoint as it stops.
    expect(types.filter((type) => type !== 'plugin.loaded' && type !== 'tool.pinned')).toEqual([
      'writer.started',
      'config.recorded',
      'config.loaded',
      'call.requested',
      'shadow.decided',
      'call.completed',
      'log.checkpointed',
    ]);
    expect(types.indexOf('tool.pinned')).toBeLessThan(types.indexOf('call.requested'));
    expect(runCli(['logs', 'verify'], root)).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(new RegExp(`^Chain verified: ${types.length} events OK\n`)),
    });
    expect(runCli(['logs', '-n', '1'], root).stdout).toMatch(
      /^TIME +TOOL +STATUS +DURATION\n\d\d:\d\d:\d\d +greet +success +\d+ms\n$/,
    );
  });

  it('exits with the tool exit code and prints its error on stderr', () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    expect(runCli(['call', 'fail'], root)).toMatchObject({ status: 7, stdout: '', stderr: 'nope\n' });
    const json = runCli(['call', 'fail', '--json'], root);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'error', exitCode: 7, error: 'nope\n' });
  });

  it('takes params from --params JSON, stdin and files', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS, 'n.txt': '12\n' });
    expect(runCli(['call', 'count', '--params', '{"n": 3}'], root).stdout).toBe('3\n');
    expect(runCli(['call', 'count', '--n', '-'], root, { input: '5\n' }).stdout).toBe('5\n');
    expect(runCli(['call', 'count', '--n', '@n.txt'], root).stdout).toBe('12\n');
    // A producer slower than the start, through oclif (the first call here) and without it (the next).
    for (let i = 0; i < 2; i++)
      expect(await runCliFedSlowly(['call', 'count', '--n', '-'], root, ['5', '7\n'], { gapMs: 300 })).toMatchObject({
        status: 0,
        stdout: '57\n',
      });
    expect(runCli(['call', 'count', '--params', '[1]'], root)).toMatchObject({
      status: 2,
      stderr: `Error: --params must be a JSON object\nUsage: factorly ${CALL_SYNOPSIS}\nSee \`factorly call --help\`.\n`,
    });
  });

  it('gives one-line errors for an unknown tool and bad params, and records only blocked calls', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    expect(runCli(['call', 'cont'], root)).toMatchObject({
      status: 1,
      stdout: '',
      stderr: 'tool "cont" not found; did you mean "count"?\n',
    });
    expect(runCli(['call', 'count'], root).stderr).toBe(
      'parameter validation failed for "count": required parameter "n" missing\n',
    );
    expect(runCli(['call', 'count', '--n', 'x1'], root).stderr).toBe(
      'parameter validation failed for "count": n: expected integer, got "x1"\n',
    );
    expect(runCli(['call'], root)).toMatchObject({
      status: 2,
      stderr: expect.stringMatching(/^Error: missing the <tool> argument .*\nUsage: factorly call <tool> /),
    });
    const completed = (await projectEvents(root))
      .filter((e) => e.type === 'call.completed')
      .map((e) => (e.data as { status: string }).status);
    expect(completed).toEqual(['blocked', 'blocked', 'blocked']);
  });

  it('refuses a broken config with the file and line, writing no events', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools:\n  a:\n    type: teleport\n' });
    const run = runCli(['call', 'a'], root);
    expect(run).toMatchObject({ status: 1, stdout: '' });
    // The list of installed types grows with the official plugins; cli is always among them.
    expect(run.stderr).toMatch(
      /^Error: config: tool "a" has unknown type "teleport" \(installed types: [a-z, -]*\bcli\b[a-z, -]*\) \(\.factorly\/factorly\.yaml:3\)\n$/,
    );
    expect(existsSync(join(root, '.factorly', 'events.lmdb'))).toBe(false);
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), 'tools:\n  a: [unclosed\n');
    expect(runCli(['tools'], root).stderr).toMatch(/^Error: config: \.factorly\/factorly\.yaml:3:1: /);
    expect(runCli(['call', 'a'], root).status).toBe(1);
    expect(existsSync(join(root, '.factorly', 'events.lmdb'))).toBe(false);
  });

  it('lists and shows tools, with close matches for a wrong name', () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    // The factorly.* built-ins are listed too; the config's own tools are checked here.
    const table = runCli(['tools'], root).stdout;
    expect(table).toMatch(/^NAME +TYPE +DESCRIPTION +PARAMETERS\n/);
    expect(table).toMatch(/^count +cli +n$/m);
    expect(table).toMatch(/^fail +cli *$/m);
    const names = (JSON.parse(runCli(['tools', '--json'], root).stdout) as { tools: { name: string }[] }).tools.map(
      (t) => t.name,
    );
    expect(names.filter((name) => !name.startsWith('factorly.'))).toEqual(['count', 'fail']);
    expect(runCli(['tools', 'show', 'count'], root).stdout).toContain('count:\n  type: cli\n  command: echo\n');
    expect(runCli(['tools', 'show', 'fial'], root)).toMatchObject({
      status: 1,
      stderr: 'Error: tool "fial" is not configured; did you mean "fail"?\n',
    });
  });

  it('logs verify names the first tampered event and exits nonzero', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    for (const n of ['1', '2', '3']) runCli(['call', 'count', '--n', n], root);
    const seq = (await projectEvents(root)).find(
      (e) => e.type === 'call.completed' && (e.data as { output: { text: string } }).output.text === '2\n',
    )!.seq;
    const env = open({ path: join(root, '.factorly', 'events.lmdb'), compression: false });
    const db = env.openDB<Buffer, number>({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' });
    db.putSync(seq, Buffer.from(db.getBinary(seq)!.toString().replace('"2\\n"', '"9\\n"')));
    await env.close();
    const verify = runCli(['logs', 'verify'], root);
    expect(verify.status).toBe(1);
    expect(verify.stderr).toBe(
      `Chain broken at seq ${seq} (modified): content does not match its hash; ${seq - 1} events before it verified\n`,
    );
  });
});
