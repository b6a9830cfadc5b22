import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach } from 'vitest';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO, 'bin', 'run.js');

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp project with the given files (paths relative to its root); removed after the test. */
export function tempProject(files: Record<string, string> = {}): string {
  const root = makeProject(files);
  made.push(root);
  return root;
}

/** A copy of the project at `from` (a suite's recorded base, to damage or forge); removed after the test. */
export function copyOfProject(from: string): string {
  const root = tempProject();
  cpSync(from, root, { recursive: true });
  return root;
}

/** A temp project with the given files that outlives a test (a suite's shared server): its maker removes it. */
export function makeProject(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'factorly-test-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in `cwd`, with its own XDG dirs so user plugins and global config never leak in. */
export function runCli(args: string[], cwd: string, options: { input?: string; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const result: SpawnSyncReturns<string> = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    input: options.input ?? '',
    encoding: 'utf8',
    env: projectEnv(cwd, options.env),
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs the CLI with `chunks` written to its stdin one at a time, `gapMs` apart, then closed: a
 * producer slower than the process's start (`op read … | factorly vault set KEY`, a person pasting).
 */
export function runCliFedSlowly(
  args: string[],
  cwd: string,
  chunks: string[],
  options: { gapMs: number; env?: NodeJS.ProcessEnv },
): Promise<CliRun> {
  const env = projectEnv(cwd, options.env);
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const outcome = outcomeOf(child);
  child.stdin.on('error', () => {}); // a child that exits before reading everything: its exit status tells
  const feed = (rest: string[]): void => {
    if (rest.length === 0) return void child.stdin.end();
    child.stdin.write(rest[0]);
    setTimeout(() => feed(rest.slice(1)), options.gapMs);
  };
  feed(chunks);
  return outcome;
}

/** What a spawned child wrote and how it ended, once its output is closed (a failure to start rejects). */
export function outcomeOf(child: ChildProcess): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The CLI's environment in a test project: its own XDG dirs (global vault, installed plugins), then `extra`. */
export function projectEnv(cwd: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, XDG_DATA_HOME: join(cwd, '.xdg-data'), XDG_CONFIG_HOME: join(cwd, '.xdg-config'), ...extra };
}
