import { spawn } from 'node:child_process';
import { toolEnvironment } from '@factorly/process-kit';

export interface PipeSpec {
  command: string;
  args: string[];
  timeoutMs: number;
  /** Its own variables (literal: a pipe's settings are not templates). */
  env: Record<string, string>;
  /** `env_passthrough`: variables taken from factorly's environment besides the base. */
  passthrough: string[];
}

/** What a pipe may return; beyond it the rest is dropped (the output is cut later anyway). */
const PIPE_CAP = 16 * 1024 * 1024;

/**
 * Pipes the output through a command (no shell; its own process group, killed whole on timeout),
 * in an environment built as a tool's: the base, its `env_passthrough` and its `env`.
 * Its stdout replaces the output. When it fails, the output passes through unfiltered with a
 * visible note saying why, so neither the agent nor the person is misled.
 */
export function runPipe(input: string, pipe: PipeSpec): Promise<string> {
  return new Promise((resolve) => {
    const env = toolEnvironment({ env: pipe.env, passthrough: pipe.passthrough });
    const child = spawn(pipe.command, pipe.args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (size < PIPE_CAP) out.push(chunk);
      size += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => {
      failure = `timed out after ${pipe.timeoutMs}ms`;
      killGroup(child.pid);
    }, pipe.timeoutMs);
    const fail = (reason: string): void =>
      resolve(
        `${input}${input.endsWith('\n') || input === '' ? '' : '\n'}[factorly: filter pipe "${pipe.command}" failed: ${reason}; output left unfiltered]\n`,
      );
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(error.code === 'ENOENT' ? 'command not found' : error.message);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (failure !== undefined) fail(failure);
      else if (code !== 0) fail(`exit code ${code}${stderr ? `: ${stderr}` : ''}`);
      else resolve(Buffer.concat(out).toString('utf8'));
    });
    child.stdin.on('error', () => undefined); // a command that does not read stdin closes it early
    child.stdin.end(input);
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
