import type { ToolCall, ToolDefinition, ToolProvider, ToolResult } from 'factorly';
import { CLI_KEYS, prepareCli, readCliSpec } from './cli-spec.js';
import { runCommand } from '@factorly/process-kit';
import { isBarePlaceholderFor, renderResolved } from './template.js';

/** Variables a strictly isolated command still gets from the parent. */
const ISOLATED_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'TERM'];

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
      env: await buildEnv(spec.env, spec.isolated, render),
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

async function buildEnv(
  extra: Record<string, string>,
  isolated: boolean,
  render: (template: string) => Promise<string>,
): Promise<NodeJS.ProcessEnv> {
  const base: NodeJS.ProcessEnv = isolated
    ? Object.fromEntries(ISOLATED_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]))
    : { ...process.env };
  for (const [key, value] of Object.entries(extra)) base[key] = await render(String(value));
  return base;
}

function joinLines(first: string, rest: string): string {
  return rest ? `${first}\n${rest}` : first;
}
