import { spawn } from 'node:child_process';

export interface CommandRun {
  command: string;
  args: string[];
  stdin?: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** Working directory (default: this process's). */
  cwd?: string;
  /**
   * Kill what is left of the process group when the command exits: for a shell, whose background
   * children would otherwise outlive it.
   */
  reapGroup?: boolean;
}

export interface CommandOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Why the command did not run to its own end (not found, timed out, aborted). */
  failure?: string;
}

/** Output kept per stream; beyond it the stream is drained but not stored, so a flood cannot exhaust memory. */
const STREAM_CAP = 64 * 1024 * 1024;
const KILL_GRACE_MS = 2_000;

/**
 * Runs a command without a shell, in its own process group so a timeout stops its children too.
 * Exit code 127 when the command is missing, 124 on timeout (as coreutils' `timeout`).
 */
export function runCommand(run: CommandRun): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawn(run.command, run.args, {
      env: run.env,
      cwd: run.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    let failure: string | undefined;
    let failedCode: number | undefined;
    const stop = (reason: string, code: number): void => {
      if (failure !== undefined || child.exitCode !== null) return;
      failure = reason;
      failedCode = code;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timedOut = (): void => stop(`command timed out after ${formatMs(run.timeoutMs)}`, 124);
    const timer = setTimeout(timedOut, run.timeoutMs);
    // The caller's signal may carry the same deadline (AbortSignal.timeout): report that as a timeout too.
    const onAbort = (): void =>
      (run.signal.reason as Error | undefined)?.name === 'TimeoutError'
        ? timedOut()
        : stop('command was cancelled', 130);
    run.signal.addEventListener('abort', onAbort, { once: true });
    // A call cancelled while its command was being prepared is stopped now: its abort has already fired.
    if (run.signal.aborted) onAbort();
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const missing = error.code === 'ENOENT';
      resolve({
        stdout: '',
        stderr: '',
        exitCode: missing ? 127 : 1,
        failure: missing ? `command not found: ${run.command}` : error.message,
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onAbort);
      if (run.reapGroup) killGroup(child.pid, 'SIGKILL');
      const exitCode = failedCode ?? code ?? (signal ? 128 + signalNumber(signal) : 1);
      resolve({ stdout: stdout(), stderr: stderr(), exitCode, failure });
    });
    child.stdin.on('error', () => undefined); // a command that ignores stdin closes the pipe early
    child.stdin.end(run.stdin ?? '');
  });
}

function collect(stream: NodeJS.ReadableStream): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (size >= STREAM_CAP) return;
    chunks.push(chunk);
    size += chunk.length;
  });
  return () => Buffer.concat(chunks).toString('utf8');
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal as string] ?? 1;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
