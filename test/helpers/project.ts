import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
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
    env: {
      ...process.env,
      XDG_DATA_HOME: join(cwd, '.xdg-data'),
      XDG_CONFIG_HOME: join(cwd, '.xdg-config'),
      ...options.env,
    },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
