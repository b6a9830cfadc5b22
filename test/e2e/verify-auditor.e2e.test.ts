import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { recoverInterrupted } from '../../src/events/recovery.js';
import { projectEvents } from '../helpers/events.js';
import { logFile, tamper } from '../helpers/forger.js';
import { BIN, copyOfProject, makeProject, runCli } from '../helpers/project.js';

const TOOLS = 'tools:\n  say: {type: cli, command: echo, args: ["{{text}}"], parameters: [{name: text}]}\n';

/**
 * One project, built once (three calls, an outside checkpoint, the verifier key and an export kept
 * beside it); each test works on a copy, as an auditor handed it would.
 */
let base: string;

beforeAll(() => {
  base = makeProject({ '.factorly/factorly.yaml': TOOLS });
  for (const text of ['one', 'two', 'three']) expect(runCli(['call', 'say', '--text', text], base).status).toBe(0);
  expect(runCli(['logs', 'checkpoint', '-o', join(base, 'checkpoint.txt')], base).status).toBe(0);
  writeFileSync(join(base, 'log.pub'), runCli(['logs', 'key'], base).stdout);
  expect(runCli(['logs', 'export', '-o', join(base, 'export.jsonl')], base).status).toBe(0);
}, 120_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const copy = (): string => copyOfProject(base);

/** The CLI as another user (nobody), who may read the project but not its signing key (mode 0600). */
function asNobody(args: string[], cwd: string) {
  const result = spawnSync(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args],
    {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        HOME: '/tmp',
        XDG_DATA_HOME: '/tmp/.factorly-nobody',
        XDG_CONFIG_HOME: '/tmp/.factorly-nobody',
        XDG_CACHE_HOME: '/tmp/.factorly-nobody',
      },
      timeout: 60_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('logs verify for an auditor', () => {
  it("by a user who cannot read log.key: the published log.pub checks the log's checkpoints; with neither, exit 2", () => {
    const root = copy();
    for (const dir of [root, join(root, '.factorly')]) chmodSync(dir, 0o755);
    expect(statSync(join(root, '.factorly', 'log.key')).mode & 0o777).toBe(0o600);
    const verified = asNobody(['logs', 'verify'], root);
    expect(verified).toMatchObject({ status: 0, stderr: '' });
    expect(verified.stdout).toMatch(/^Chain verified: \d+ events OK$/m);
    renameSync(join(root, '.factorly', 'log.pub'), join(root, 'elsewhere.pub'));
    const neither = asNobody(['logs', 'verify'], root);
    expect(neither.status).toBe(2);
    expect(neither.stderr).toMatch(
      /^Error: cannot read the log key \S+log\.key \(EACCES\) and the project publishes no verifier key \(\S+log\.pub\): pass --key FILE\n$/,
    );
    expect(asNobody(['logs', 'verify', '--key', join(root, 'elsewhere.pub')], root).status).toBe(0);
  });

  it('an entry that is not JSON: one line naming the file, exit 1; a checkpoint over it shows its own result', async () => {
    const root = copy();
    await tamper(root, (dbs) => dbs.events.putSync(2, Buffer.from('{not json')));
    const run = runCli(
      ['logs', 'verify', '--checkpoint', join(root, 'checkpoint.txt'), '--key', join(root, 'log.pub')],
      root,
    );
    expect(run.status).toBe(1);
    const size = JSON.parse(readFileSync(join(root, 'checkpoint.txt'), 'utf8').split('\n')[1]!) as number;
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([
      `Chain broken at seq 2 (corrupt): event log entry 2 is not valid JSON in ${logFile(root)}; 1 events before it verified`,
      `Checkpoint ${join(root, 'checkpoint.txt')}: signed by a trusted key (${size} events), not proven: the chain breaks at seq 2, inside the ${size} events checkpoint ${join(root, 'checkpoint.txt')} covers`,
    ]);
  });

  it('an export broken offline: named by its file and line, no empty root printed', () => {
    const root = copy();
    const exported = join(root, 'export.jsonl');
    const lines = readFileSync(exported, 'utf8').split('\n');
    lines[2] = '{broken';
    writeFileSync(exported, lines.join('\n'));
    const run = runCli(['logs', 'verify', '--offline', exported, '--key', join(root, 'log.pub')], root);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `Chain broken at seq 3 (corrupt): line 3 of the export ${exported} is not valid JSON; 2 events before it verified\n`,
    );
    expect(run.stdout).not.toMatch(/root\s+\(|root $/m);
    expect(run.stdout).toMatch(/^Merkle tree: 2 leaves, root [0-9a-f]{64}$/m);
  });

  it('an inflight entry edited in for a completed call: recovery does not mark it interrupted, verify names the entry', async () => {
    const root = copy();
    const events = await projectEvents(root);
    const requested = events.find((event) => event.type === 'call.requested')! as Recorded<'call.requested'>;
    await tamper(root, (_dbs, raw) =>
      raw
        .openDB<{ writer: string }, string>({ name: 'inflight', encoding: 'json' })
        .putSync(`c:${requested.data.callId}`, { writer: requested.data.writer! }),
    );
    const log = new LmdbEventLog({ path: logFile(root) });
    try {
      expect(await recoverInterrupted(log)).toBe(0);
    } finally {
      await log.close();
    }
    expect((await projectEvents(root)).filter((event) => event.type === 'call.interrupted')).toEqual([]);
    const run = runCli(['logs', 'verify'], root);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`[inflight]: the inflight index lists call ${requested.data.callId}`);
  });
});
