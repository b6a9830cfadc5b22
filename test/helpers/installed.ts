import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { REPO, type CliRun } from './project.js';

/** factorly as a user has it after `npm install -g <tarball>`: in a prefix of its own, outside the checkout. */
export interface Installed {
  /** Where everything of this install lives (removed by the test that made it). */
  work: string;
  tarball: string;
  bin: string;
  /** What every process it starts gets: no network for npm, a home and XDG dirs of its own. */
  env: Record<string, string>;
  run(args: string[], cwd: string, input?: string): CliRun;
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm <args>` in `cwd` with the install's environment; throws with npm's output when it fails. */
export function npm(args: string[], cwd: string, env: Record<string, string>): string {
  return execFileSync(NPM, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** `npm pack` of the package in `dir` into `destination` (`npm run pack` for factorly itself); the tarball's path. */
export function pack(dir: string, destination: string, env: Record<string, string>): string {
  if (dir === REPO) return npm(['run', '--silent', 'pack', '--', destination], dir, env).trim().split('\n').at(-1)!;
  const printed = npm(['pack', '--pack-destination', destination], dir, env).trim().split('\n');
  return join(destination, printed[printed.length - 1]!);
}

/** Packs this checkout (as built) and installs the tarball globally into a temp prefix, offline. */
export function installPacked(): Installed {
  const work = mkdtempSync(join(tmpdir(), 'factorly-installed-'));
  const home = join(work, 'home');
  mkdirSync(home);
  const env = {
    // The machine's npm, as a user has it (not one a package of this checkout brings along).
    PATH: (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => !dir.includes('node_modules'))
      .join(':'),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    // Nothing may come from a registry: the tarball carries everything.
    npm_config_offline: 'true',
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const tarball = packedFactorly(env);
  npm(['install', '--global', '--prefix', join(work, 'prefix'), tarball], work, env);
  const bin = join(work, 'prefix', 'bin', 'factorly');
  const run = (args: string[], cwd: string, input = ''): CliRun => {
    const result = spawnSync(bin, args, { cwd, env, input, encoding: 'utf8', timeout: 120_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  return { work, tarball, bin, env, run };
}

/**
 * This checkout packed once for the whole run: the first file to ask packs it into the run's
 * directory, a file asking meanwhile waits for that tarball (packing takes ~15 s of CPU).
 */
function packedFactorly(env: Record<string, string>): string {
  const dir = inject('runDir');
  const [tarball, failed] = [join(dir, 'factorly.tgz'), join(dir, 'factorly.tgz.failed')];
  try {
    closeSync(openSync(join(dir, 'factorly.tgz.packing'), 'wx'));
  } catch {
    return packedByAnother(tarball, failed);
  }
  try {
    renameSync(pack(REPO, mkdtempSync(join(dir, 'pack-')), env), tarball);
    return tarball;
  } catch (error) {
    writeFileSync(failed, String(error));
    throw error;
  }
}

function packedByAnother(tarball: string, failed: string): string {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const deadline = Date.now() + 240_000; Date.now() < deadline; Atomics.wait(pause, 0, 0, 200)) {
    if (existsSync(tarball)) return tarball;
    if (existsSync(failed))
      throw new Error(`packing factorly failed in another test file: ${readFileSync(failed, 'utf8')}`);
  }
  throw new Error('packing factorly in another test file took over 4 minutes');
}

/**
 * Copies `name` and the packages it depends on (transitively) from `from` (a node_modules folder)
 * into `to`: what `npm install <name>` would put there, for a registry this machine cannot reach.
 */
export function copyPackage(name: string, from: string, to: string): void {
  if (existsSync(join(to, name))) return;
  const source = join(from, name);
  mkdirSync(dirname(join(to, name)), { recursive: true });
  cpSync(source, join(to, name), { recursive: true, dereference: true });
  const { dependencies = {} } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dependency of Object.keys(dependencies)) copyPackage(dependency, from, to);
}

/** Runs `command args` in `cwd` and resolves with its exit code and output (for suites that take a while). */
export function runAsync(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
