import { readEnvPassthrough, runCommand, toolEnvironment } from '@factorly/process-kit';
import type { ToolCall, ToolResult } from 'factorly';
import { shellProblem } from './shell-guard.js';

/**
 * `factorly.shell`: `sh -c <command>` in the project directory, in its own process group so a
 * timeout (exit 124) or cancel (130) kills everything it started, and what is left of the group
 * when the shell exits. stdout is the output; stderr is the error when the exit code is not 0, and
 * kept as diagnostics when it is. Its environment is a tool's: the base, `env_passthrough` and `env`.
 */
export async function shellTool(call: ToolCall, cwd: string, allowPatterns: readonly string[]): Promise<ToolResult> {
  const command = String(call.params.command ?? '');
  const problem = shellProblem(command, allowPatterns);
  if (problem) return { output: '', error: problem, exitCode: 1 };
  const run = await runCommand({
    command: 'sh',
    args: ['-c', command],
    cwd,
    env: await shellEnvironment(call),
    timeoutMs: call.timeoutMs,
    signal: call.signal,
    reapGroup: true,
  });
  const { stdout: output, stderr, exitCode, failure } = run;
  if (failure) return { output, error: [failure, stderr].filter(Boolean).join('\n'), exitCode };
  if (exitCode !== 0) return { output, error: stderr || `exit code ${exitCode}`, exitCode };
  return { output, exitCode: 0, diagnostics: stderr || undefined };
}

/** `env` values may hold secret references (resolved through the call, so they are scrubbed). */
async function shellEnvironment(call: ToolCall): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  const configured = (call.tool.spec.env ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(configured)) env[key] = await call.secrets.resolve(String(value));
  return toolEnvironment({ env, passthrough: readEnvPassthrough(call.tool.spec.env_passthrough) });
}
