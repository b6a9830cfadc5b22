import { spawn } from 'node:child_process';
import type { ToolCall, ToolResult } from 'factorly';
import { shellProblem } from './shell-guard.js';

const STREAM_CAP = 16 * 1024 * 1024;
const KILL_GRACE_MS = 1_000;

/**
 * `factorly.shell`: `sh -c <command>` in the project directory, in its own process group so a
 * timeout or cancel kills everything it started (exit 124). stdout is the output; stderr is the
 * error when the exit code is not 0, and kept as diagnostics when it is.
 */
export function shellTool(call: ToolCall, cwd: string, allowPatterns: readonly string[]): Promise<ToolResult> {
  const command = String(call.params.command ?? '');
  const problem = shellProblem(command, allowPatterns);
  if (problem) return Promise.resolve({ output: '', error: problem, exitCode: 1 });
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    let stopped: string | undefined;
    const stop = (): void => {
      if (stopped !== undefined) return;
      const timedOut = (call.signal.reason as Error | undefined)?.name === 'TimeoutError';
      stopped = timedOut ? `command timed out after ${call.timeoutMs}ms` : 'command was cancelled';
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    call.signal.addEventListener('abort', stop, { once: true });
    child.on('error', (error) => resolve({ output: '', error: error.message, exitCode: 1 }));
    child.on('close', (code, signal) => {
      call.signal.removeEventListener('abort', stop);
      // The shell may be gone while a background child still runs: end the whole group.
      killGroup(child.pid, 'SIGKILL');
      if (stopped) return resolve({ output: stdout(), error: [stopped, stderr()].filter(Boolean).join('\n'), exitCode: 124 });
      const exitCode = code ?? (signal ? 128 : 1);
      if (exitCode !== 0) return resolve({ output: stdout(), error: stderr() || `exit code ${exitCode}`, exitCode });
      resolve({ output: stdout(), exitCode: 0, diagnostics: stderr() || undefined });
    });
  });
}

function collect(stream: NodeJS.ReadableStream): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (size < STREAM_CAP) chunks.push(chunk);
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
