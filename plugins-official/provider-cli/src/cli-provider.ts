import type { ToolCall, ToolDefinition, ToolProvider, ToolResult } from 'factorly';
import { CLI_KEYS, prepareCli, readCliSpec, type CliSpec } from './cli-spec.js';
import { runCommand, toolEnvironment } from '@factorly/process-kit';
import { isBarePlaceholderFor, renderResolved } from './template.js';

/**
 * `type: cli`: runs `command` with rendered `args` (no shell, so params cannot inject commands),
 * optional `stdin` template and `env`. stdout is the output; stderr is the error when the exit code
 * is not 0, and kept as diagnostics when it is (exit 0 is a success).
 */
export class CliProvider implements ToolProvider {
  readonly type = 'cli';
  readonly keys = CLI_KEYS;

  prepare(tool: ToolDefinition) {
    return prepareCli(tool);
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const spec = readCliSpec(call.tool);
    const params = call.params as Record<string, unknown>;
    const render = (template: string): Promise<string> => renderResolved(template, params, call.secrets);
    const args = await Promise.all(spec.args.filter((arg) => !isBarePlaceholderFor(arg, params)).map(render));
    const outcome = await runCommand({
      command: await render(spec.command),
      args,
      stdin: spec.stdin === undefined ? undefined : await render(spec.stdin),
      env: await buildEnv(spec, render),
      timeoutMs: call.timeoutMs,
      signal: call.signal,
    });
    if (outcome.failure) {
      return { output: outcome.stdout, error: joinLines(outcome.failure, outcome.stderr), exitCode: outcome.exitCode };
    }
    if (outcome.exitCode !== 0)
      return {
        output: outcome.stdout,
        error: outcome.stderr || `exit code ${outcome.exitCode}`,
        exitCode: outcome.exitCode,
      };
    return { output: outcome.stdout, exitCode: 0, diagnostics: outcome.stderr || undefined };
  }
}

/** The base environment, `env_passthrough` (or everything, for `env_isolation: inherit`) and the rendered `env`. */
async function buildEnv(spec: CliSpec, render: (template: string) => Promise<string>): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.env)) env[key] = await render(String(value));
  return toolEnvironment({ env, passthrough: spec.passthrough, inherit: spec.inherit });
}

function joinLines(first: string, rest: string): string {
  return rest ? `${first}\n${rest}` : first;
}
