import { spawn } from 'node:child_process';
import { BIN, type CliRun } from './project.js';

/**
 * Starts `factorly auth login <args…> --no-browser` without blocking the test (its authorization
 * server may live in this process) and resolves with the authorization URL it prints (the first
 * match of `url`) and the promise of its end.
 */
export function loginInBackground(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  url: RegExp,
): Promise<{ url: string; done: Promise<CliRun> }> {
  const child = spawn(process.execPath, [BIN, 'auth', 'login', ...args, '--no-browser'], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  const done = new Promise<CliRun>((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = url.exec(stderr)?.[0];
      if (found) resolve({ url: found, done });
    });
    void done.then((run) => reject(new Error(`auth login ended (${run.status}) before printing a URL: ${run.stderr}`)));
  });
}
