import { runCommand } from '@factorly/process-kit';
import type { ToolCall, ToolResult } from 'factorly';
import { shellProblem } from './shell-guard.js';

/**
 * `factorly.shell`: `sh -c <command>` in the project directory, in its own process group so a
 * timeout (exit 124) or cancel (130) kills everything it started, and what is left of the group
 * when the shell exits. stdout is the output; stderr is the error when the exit code is not 0, and
 * kept as diagnostics when it is.
 */
export async function shellTool(call: ToolCall, cwd: string, allowPatterns: readonly string[]): Promise<ToolResult> {
  const command = String(call.params.command ?? '');
  const problem = shellProblem(command, allowPatterns);
  if (problem) return { output: '', error: problem, exitCode: 1 };
  const run = await runCommand({
    command: 'sh',
    args: ['-c', command],
    cwd,
    env: process.env,
    timeoutMs: call.timeoutMs,
    signal: call.signal,
    reapGroup: true,
  });
  const { stdout: output, stderr, exitCode, failure } = run;
  if (failure) return { output, error: [failure, stderr].filter(Boolean).join('\n'), exitCode };
  if (exitCode !== 0) return { output, error: stderr || `exit code ${exitCode}`, exitCode };
  return { output, exitCode: 0, diagnostics: stderr || undefined };
}
