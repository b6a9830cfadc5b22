import type { UpstreamDeclaration } from '@factorly/plugin-oauth/api';
import type { PreparedDefinition, ToolDefinition } from 'factorly';
import { envPassthroughProblems, readEnvPassthrough } from '@factorly/process-kit';

/** How to reach one upstream MCP server: a command spoken to over stdio, or a Streamable HTTP URL. */
export type McpTarget = (
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; passthrough: string[] }
  | { kind: 'http'; url: string; headers: Record<string, string>; transport: HttpTransport }
) & {
  /** The entry's `timeout`, which bounds connecting too (a server that hangs at initialize fails alone). */
  connectTimeoutMs?: number;
};

/**
 * How an HTTP server is spoken to: `http` (Streamable HTTP), `sse` (the legacy HTTP+SSE transport
 * of protocol 2024-11-05), or `auto` (no `transport` key): Streamable HTTP, then SSE when the server
 * refuses it with a 4xx other than 401, as the SDK's clients do.
 */
export type HttpTransport = 'auto' | 'http' | 'sse';
const HTTP_TRANSPORTS = ['http', 'sse'] as const;

/**
 * `prefix: false` serves the server's tools under their own names (what `wrap` does); `oauth`
 * configures the login of an HTTP server (the oauth plugin checks and uses it).
 */
export const MCP_KEYS = [
  'command',
  'args',
  'env',
  'env_passthrough',
  'url',
  'headers',
  'transport',
  'prefix',
  'tools',
  'exclude',
  'oauth',
] as const;

export function readTarget(tool: ToolDefinition): McpTarget {
  const { command, args, env, env_passthrough: passthrough, url, headers, transport } = tool.spec;
  const bound = tool.timeoutMs === undefined ? {} : { connectTimeoutMs: tool.timeoutMs };
  if (typeof url === 'string')
    return {
      kind: 'http',
      url,
      headers: isStringMap(headers) ? stringify(headers) : {},
      transport: transport === 'sse' || transport === 'http' ? transport : 'auto',
      ...bound,
    };
  return {
    ...bound,
    kind: 'stdio',
    command: String(command ?? ''),
    args: Array.isArray(args) ? args.map(String) : [],
    env: isStringMap(env) ? stringify(env) : {},
    passthrough: readEnvPassthrough(passthrough),
  };
}

/** Load-time checks: exactly one of command/url, and the right shapes. */
export function prepareMcp(tool: ToolDefinition): PreparedDefinition {
  const problems: string[] = [];
  const { command, args, env, env_passthrough: passthrough, url, headers } = tool.spec;
  const hasCommand = command !== undefined;
  const hasUrl = url !== undefined;
  if (hasCommand === hasUrl)
    problems.push('needs either command (stdio) or url (Streamable HTTP), not both or neither');
  if (hasCommand && (typeof command !== 'string' || command.trim() === ''))
    problems.push('has a command that is not a non-empty string');
  if (hasUrl && (typeof url !== 'string' || !/^https?:\/\//i.test(url)))
    problems.push(`has url ${JSON.stringify(url)}, which is not an http:// or https:// URL`);
  if (args !== undefined && (!Array.isArray(args) || args.some((a) => typeof a === 'object' && a !== null)))
    problems.push('has "args" that is not a list of strings');
  if (env !== undefined && !isStringMap(env)) problems.push('has "env" that is not a mapping of names to strings');
  if (headers !== undefined && !isStringMap(headers))
    problems.push('has "headers" that is not a mapping of names to strings');
  problems.push(...envPassthroughProblems(passthrough));
  if (hasUrl && (args !== undefined || env !== undefined || passthrough !== undefined))
    problems.push('has args/env/env_passthrough, which only apply to a stdio server (command)');
  if (hasCommand && headers !== undefined) problems.push('has headers, which only apply to an HTTP server (url)');
  if (hasCommand && tool.spec.oauth !== undefined)
    problems.push('has oauth, which only applies to an HTTP server (url)');
  problems.push(...transportProblems(tool.spec.transport, hasCommand));
  if (tool.spec.prefix !== undefined && typeof tool.spec.prefix !== 'boolean')
    problems.push('has "prefix" that is not true or false');
  for (const key of ['tools', 'exclude'] as const) {
    const list = tool.spec[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((name) => typeof name !== 'string' || name === '')))
      problems.push(`has "${key}" that is not a list of tool names or globs`);
  }
  if (tool.parameters.length > 0)
    problems.push("declares parameters, but an mcp server's tools take theirs from the server");
  return { problems };
}

/** The config's `type: mcp` entries with a `url`, as the oauth plugin learns them. */
export function httpUpstreams(tools: readonly ToolDefinition[]): UpstreamDeclaration[] {
  return tools.flatMap((tool) => {
    if (tool.type !== 'mcp' || typeof tool.spec.url !== 'string') return [];
    const target = readTarget(tool);
    if (target.kind !== 'http') return [];
    const oauth = tool.spec.oauth;
    return [{ name: tool.name, url: target.url, headers: target.headers, ...(oauth === undefined ? {} : { oauth }) }];
  });
}

/** Every template of a target, for resolving and scrubbing secret references in them. */
export function targetTemplates(target: McpTarget): string[] {
  return target.kind === 'http'
    ? [target.url, ...Object.values(target.headers)]
    : [target.command, ...target.args, ...Object.values(target.env)];
}

function transportProblems(transport: unknown, hasCommand: boolean): string[] {
  if (transport === undefined) return [];
  if (hasCommand) return ['has transport, which only applies to an HTTP server (url)'];
  if (!(HTTP_TRANSPORTS as readonly unknown[]).includes(transport))
    return [
      `has transport ${JSON.stringify(transport)}, which is not ${HTTP_TRANSPORTS.map((t) => JSON.stringify(t)).join(' or ')} (leave it out to detect the server's)`,
    ];
  return [];
}

function isStringMap(value: unknown): value is Record<string, string | number | boolean> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  );
}

function stringify(map: Record<string, string | number | boolean>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, String(value)]));
}
