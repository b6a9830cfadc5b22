import type { PreparedDefinition, ToolDefinition } from 'factorly';
import { envPassthroughProblems, readEnvPassthrough } from '@factorly/process-kit';
import { inferParameters, placeholders } from './template.js';

/** The `cli` keys of a tool definition, validated. */
export interface CliSpec {
  command: string;
  args: string[];
  stdin?: string;
  env: Record<string, string>;
  /** `env_passthrough`: variables taken from factorly's environment besides the base. */
  passthrough: string[];
  /** `env_isolation: inherit`: factorly's whole environment minus its own secret variables. */
  inherit: boolean;
}

export const CLI_KEYS = ['command', 'args', 'stdin', 'env', 'env_passthrough', 'env_isolation'] as const;

/** `strict` (the default: the base environment, `env_passthrough` and `env`) is kept as a name for it. */
const ISOLATION = ['strict', 'inherit'];

export function readCliSpec(tool: ToolDefinition): CliSpec {
  const { command, args, stdin, env, env_passthrough: passthrough, env_isolation: isolation } = tool.spec;
  return {
    command: String(command ?? ''),
    args: Array.isArray(args) ? args.map(String) : [],
    stdin: typeof stdin === 'string' ? stdin : undefined,
    env: isStringMap(env) ? (env as Record<string, string>) : {},
    passthrough: readEnvPassthrough(passthrough),
    inherit: isolation === 'inherit',
  };
}

/** Load-time checks, so a typo is a config error rather than a failed call. */
export function prepareCli(tool: ToolDefinition): PreparedDefinition {
  const problems: string[] = [];
  const { command, args, stdin, env, env_passthrough: passthrough, env_isolation: isolation } = tool.spec;
  if (typeof command !== 'string' || command.trim() === '') problems.push('is a cli tool but has no command');
  if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a === 'object' && a !== null))) {
    problems.push('has "args" that is not a list of strings');
  }
  if (stdin !== undefined && typeof stdin !== 'string') problems.push('has "stdin" that is not a string template');
  if (env !== undefined && !isStringMap(env)) problems.push('has "env" that is not a mapping of names to strings');
  problems.push(...envPassthroughProblems(passthrough));
  if (isolation !== undefined && !ISOLATION.includes(isolation as string))
    problems.push(`has env_isolation ${JSON.stringify(isolation)} (expected "strict", the default, or "inherit")`);
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
