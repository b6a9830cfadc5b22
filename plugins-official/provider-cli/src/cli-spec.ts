import type { PreparedDefinition, ToolDefinition } from 'factorly';
import { inferParameters, placeholders } from './template.js';

/** The `cli` keys of a tool definition, validated. */
export interface CliSpec {
  command: string;
  args: string[];
  stdin?: string;
  env: Record<string, string>;
  isolated: boolean;
}

export const CLI_KEYS = ['command', 'args', 'stdin', 'env', 'env_isolation'] as const;

export function readCliSpec(tool: ToolDefinition): CliSpec {
  const { command, args, stdin, env, env_isolation: isolation } = tool.spec;
  return {
    command: String(command ?? ''),
    args: Array.isArray(args) ? args.map(String) : [],
    stdin: typeof stdin === 'string' ? stdin : undefined,
    env: isStringMap(env) ? (env as Record<string, string>) : {},
    isolated: isolation === 'strict',
  };
}

/** Load-time checks, so a typo is a config error rather than a failed call. */
export function prepareCli(tool: ToolDefinition): PreparedDefinition {
  const problems: string[] = [];
  const { command, args, stdin, env, env_isolation: isolation } = tool.spec;
  if (typeof command !== 'string' || command.trim() === '') problems.push('is a cli tool but has no command');
  if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a === 'object' && a !== null))) {
    problems.push('has "args" that is not a list of strings');
  }
  if (stdin !== undefined && typeof stdin !== 'string') problems.push('has "stdin" that is not a string template');
  if (env !== undefined && !isStringMap(env)) problems.push('has "env" that is not a mapping of names to strings');
  if (isolation !== undefined && isolation !== 'strict')
    problems.push(`has env_isolation ${JSON.stringify(isolation)} (the only value is "strict")`);
  if (problems.length > 0) return { problems };
  const spec = readCliSpec(tool);
  const templates = [spec.command, ...spec.args, ...(spec.stdin === undefined ? [] : [spec.stdin])];
  if (tool.parameters.length === 0) return { problems, inferredParameters: inferParameters(templates) };
  const declared = new Set(tool.parameters.map((p) => p.name));
  for (const name of templates.flatMap(placeholders)) {
    if (!declared.has(name)) problems.push(`uses {{${name}}}, which is not one of its parameters`);
  }
  return { problems: [...new Set(problems)] };
}

function isStringMap(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  );
}
