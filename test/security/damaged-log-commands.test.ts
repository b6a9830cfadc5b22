import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { BIN, runCli, type CliRun } from '../helpers/project.js';

/**
 * Issue 31, item 4: a log file that is damaged is never read as if it were whole. Every command
 * that opens the log, on an empty file and on files with one page overwritten by random bytes
 * (a fixed seed, a few pages per command): exit 2 with a last line naming the file, or the same
 * answer as on the intact file; never a signal, never exit 0 with less than the intact answer.
 */

const PAGE = 4096;
const PAGES_PER_COMMAND = 3;
const CONFIG =
  'tools:\n  hi:\n    type: cli\n    command: echo\n    args: ["{{n}}"]\n    parameters: [{name: n, required: true}]\n';

let template: string;
let good: Buffer;
let callId: string;
const made: string[] = [];

beforeAll(() => {
  template = copyDir();
  writeFileSync(join(template, '.factorly', 'factorly.yaml'), CONFIG);
  for (let n = 1; n <= 8; n += 1) expect(runCli(['call', 'hi', '--n', String(n)], template).status).toBe(0);
  callId = JSON.parse(runCli(['logs', '--json', '-n', '1'], template).stdout).call_id as string;
  rmSync(join(template, '.factorly', 'events.lmdb-lock'), { force: true });
  good = readFileSync(join(template, '.factorly', 'events.lmdb'));
}, 60_000);
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temp dir (removed after the suite): a copy of `from`, or a project dir with an empty `.factorly`. */
function copyDir(from?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'factorly-damaged-'));
  made.push(dir);
  if (from) cpSync(from, dir, { recursive: true });
  else mkdirSync(join(dir, '.factorly'));
  return dir;
}

/** A copy of the recorded project whose events.lmdb is `bytes`. */
function projectWith(bytes: Buffer): { root: string; file: string } {
  const root = copyDir(template);
  const file = join(root, '.factorly', 'events.lmdb');
  writeFileSync(file, bytes);
  return { root, file };
}

/** A fixed-seed generator (a linear congruential one: the same pages and bytes on every run). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

function withRandomPage(page: number, random: () => number): Buffer {
  const bytes = Buffer.from(good);
  for (let i = 0; i < PAGE; i += 1) bytes[page * PAGE + i] = Math.floor(random() * 256);
  return bytes;
}

const COMMANDS: Record<string, () => string[]> = {
  logs: () => ['logs', '-n', '50'],
  'logs show': () => ['logs', 'show', callId],
  'logs export': () => ['logs', 'export'],
  'logs stats': () => ['logs', 'stats'],
  'logs verify': () => ['logs', 'verify'],
  'logs rebuild': () => ['logs', 'rebuild'],
  call: () => ['call', 'hi', '--n', '99'],
};

type Verdict = 'refused' | 'answered' | 'chain broken';

/** What a run on a damaged file may do; anything else fails the test, naming the command and page. */
function judge(run: CliRun, intact: CliRun, file: string, what: string): Verdict {
  expect(run.status, `${what}: ended by a signal or without a code\n${run.stderr}`).not.toBeNull();
  if (run.status === 2) {
    const last = run.stderr.trimEnd().split('\n').at(-1) ?? '';
    expect(last, what).toMatch(/^Error: the event log /);
    expect(last, what).toContain(file);
    return 'refused';
  }
  // `logs stats` reports a chain it finds broken in its answer, exit 1, as it always has.
  if (what.startsWith('logs stats') && run.status === 1 && /Hash chain: BROKEN/.test(run.stdout)) return 'chain broken';
  // Finding the damage is `logs verify`'s answer: exit 1, naming the broken seq or the record that
  // does not match (which pages hold events depends on the file's layout, which varies from run to run).
  if (what.startsWith('logs verify') && run.status === 1 && /^(Chain broken at seq \d+|Tampered)/m.test(run.stderr))
    return 'chain broken';
  expect(
    { status: run.status, stdout: untimed(run.stdout) },
    `${what}: not exit 2, so the whole answer\n${run.stderr}`,
  ).toEqual({
    status: intact.status,
    stdout: untimed(intact.stdout),
  });
  return 'answered';
}

/** `logs rebuild` says how long it took: the one part of an answer that may differ between runs. */
function untimed(stdout: string): string {
  return stdout.replace(/ in [\d.]+ s$/m, ' in … s');
}

const verdicts: Verdict[] = [];

describe('every command that opens a damaged log ends with exit 2 naming the file, or answers in full', () => {
  for (const [name, args] of Object.entries(COMMANDS)) {
    it(`${name}: an empty (0-byte) file is refused, not taken for a fresh log`, () => {
      const { root, file } = projectWith(Buffer.alloc(0));
      const run = runCli(args(), root);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr, run.stdout).toContain(`Error: the event log ${file} is empty (0 bytes)`);
      expect(readFileSync(file).length, 'the file is left as it was').toBe(0);
    });

    it(`${name}: ${PAGES_PER_COMMAND} pages of random bytes (fixed seed)`, () => {
      const intactRun = runCli(args(), projectWith(good).root);
      const pages = good.length / PAGE;
      const random = seeded(name.length * 7919 + 31);
      for (let i = 0; i < PAGES_PER_COMMAND; i += 1) {
        // Never the two header pages: their damage is covered by bad-log-files.test.ts.
        const page = 2 + Math.floor(random() * (pages - 2));
        const { root, file } = projectWith(withRandomPage(page, random));
        verdicts.push(judge(runCli(args(), root), intactRun, file, `${name} (page ${page})`));
      }
    });
  }

  it('the fuzzing is not vacuous: some damage was refused, and some left an answer that is whole', () => {
    expect(verdicts).toContain('refused');
    expect(verdicts).toContain('answered');
  });
});

describe('a new log is made whole before it has its name', () => {
  it('no file: one is created (and only then), with nothing left behind beside it', async () => {
    const dir = copyDir();
    const path = join(dir, 'fresh', 'events.lmdb');
    const log = new LmdbEventLog({ path, durability: 'commit' });
    await log.append([{ type: 'config.loaded', data: { files: [] } } as never]);
    await log.close();
    expect(readdirSync(join(dir, 'fresh')).sort()).toEqual(['events.lmdb', 'events.lmdb-lock']);
    expect(() => new LmdbEventLog({ path })).not.toThrow();
  });

  it('an empty file is refused by the log itself, and stays empty', () => {
    const dir = copyDir();
    const path = join(dir, 'events.lmdb');
    writeFileSync(path, '');
    expect(() => new LmdbEventLog({ path })).toThrow(/is empty \(0 bytes\)/);
    expect(readFileSync(path).length).toBe(0);
  });
});

/** The environment `runCli` gives a run (its own XDG dirs). */
function isolated(root: string): NodeJS.ProcessEnv {
  return { ...process.env, XDG_DATA_HOME: join(root, '.xdg-data'), XDG_CONFIG_HOME: join(root, '.xdg-config') };
}

/**
 * `logs --follow` in `root`, ended by SIGSEGV once it has printed what the log holds (so it has the
 * log open): sent to the guarded child, as LMDB ending it on a damaged page would end it.
 */
async function crashedFollowing(root: string, flags: string[]): Promise<CliRun> {
  const guard = spawn(process.execPath, [BIN, 'logs', '--follow', ...flags], { cwd: root, env: isolated(root) });
  let stdout = '';
  let stderr = '';
  guard.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<number | null>((resolve) => guard.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve) =>
    guard.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('\n')) resolve();
    }),
  );
  const child = Number(readFileSync(`/proc/${guard.pid}/task/${guard.pid}/children`, 'utf8').trim().split(' ')[0]);
  process.kill(child, 'SIGSEGV');
  return { status: await ended, stdout, stderr };
}

describe('the guard around log commands', () => {
  const project = (script: string): string => {
    const root = copyDir(template);
    writeFileSync(
      join(root, '.factorly', 'factorly.yaml'),
      `tools:\n  die:\n    type: cli\n    command: sh\n    args: ["-c", ${JSON.stringify(script)}]\n`,
    );
    return root;
  };

  it('a log command that dies of a crash signal after opening the log: exit 2, naming the file (and --json)', async () => {
    const root = copyDir(template);
    const file = join(root, '.factorly', 'events.lmdb');
    const run = await crashedFollowing(root, []);
    expect(run.status).toBe(2);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(
      `Error: the event log ${file} is damaged: LMDB ended the process reading it (SIGSEGV); move it aside to start a new log, or restore it from a backup`,
    );
    const json = await crashedFollowing(root, ['--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      error: { code: 'LOG_UNREADABLE', message: expect.stringContaining(file) },
    });
  });

  it('any other end is passed on as it was: a kill by SIGTERM, an exit code', () => {
    const root = project('kill -TERM $PPID');
    const killed = spawnSync(process.execPath, [BIN, 'call', 'die'], {
      cwd: root,
      encoding: 'utf8',
      env: isolated(root),
    });
    expect({ status: killed.status, signal: killed.signal }).toEqual({ status: null, signal: 'SIGTERM' });
    expect(runCli(['call', 'die'], project('exit 7')).status).toBe(7);
  });
});

describe('logs verify: 1 only for evidence of tampering, 2 for what it cannot use', () => {
  it('a signing key others can read: exit 2, naming the key', () => {
    const root = copyDir(template);
    chmodSync(join(root, '.factorly', 'log.key'), 0o640);
    const run = runCli(['logs', 'verify'], root);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^Error: log key \.factorly\/log\.key has insecure permissions 0640/m);
  });

  it('a log stream that does not answer: exit 2, naming it', () => {
    // Refused at once; the timeout is only long enough that a loaded machine's slow start does not expire it first.
    const root = copyDir();
    writeFileSync(
      join(root, '.factorly', 'factorly.yaml'),
      'log:\n  engine: nats\n  servers: [nats://127.0.0.1:1]\n  stream: s\n  timeout: 3000\ntools: {}\n',
    );
    const run = runCli(['logs', 'verify'], root);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^Error: cannot read the event log nats\/s\/\S+: connection refused/m);
  });
});
