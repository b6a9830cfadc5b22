import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, outcomeOf, projectEnv, type CliRun } from '../../../test/helpers/project.js';

/** The CLI's environment for a test project: its own XDG dirs (so the global vault is inside `root`). */
export function cliEnv(root: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = projectEnv(root, extra);
  delete env.FACTORLY_VAULT_PASSWORD;
  if (extra.FACTORLY_VAULT_PASSWORD !== undefined) env.FACTORLY_VAULT_PASSWORD = extra.FACTORLY_VAULT_PASSWORD;
  return env;
}

/** Runs the CLI without waiting, so several can run at once. */
export function runCliAsync(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  return outcomeOf(spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * Runs the CLI on a real pseudo-terminal (util-linux `script`), answering each prompt once it shows:
 * what the test reads back is exactly what a person would see on screen.
 */
export function runCliInPty(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  answers: { after: string; send: string }[],
): Promise<{ status: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let next = 0;
    let seen = 0;
    const onData = (chunk: Buffer): void => {
      screen += chunk.toString();
      while (next < answers.length) {
        const at = screen.indexOf(answers[next].after, seen);
        if (at < 0) break;
        seen = at + answers[next].after.length;
        child.stdin.write(answers[next++].send);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, screen });
    });
  });
}

/** Every file under `dir` with its bytes: compared before and after a refused operation. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else out[path.slice(dir.length)] = `${stat.mode.toString(8)} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}
