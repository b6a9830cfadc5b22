import type { UpstreamCapabilities } from '@factorly/plugin-interface-mcp/api';

type Flags = Record<string, unknown> | undefined;

/** Server-to-client requests a connection answers through its route, and the capability each needs. */
export const CLIENT_REQUESTS = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
  // The agent's own tasks (a sampling or elicitation it runs as a task): the server asks after them.
  'tasks/get': 'tasks',
  'tasks/result': 'tasks',
  'tasks/list': 'tasks',
  'tasks/cancel': 'tasks',
} as const;

/**
 * What factorly's MCP server declares for the upstreams behind it: each capability some upstream
 * declares, with the flags (subscribe, listChanged) that some upstream sets, and nothing more, so
 * one upstream's capabilities come out exactly as it declared them.
 */
export function unionOfCapabilities(declared: readonly Record<string, unknown>[]): UpstreamCapabilities {
  const union: UpstreamCapabilities = {};
  const resources = flagsOf(
    declared.map((d) => d.resources as Flags),
    ['subscribe', 'listChanged'],
  );
  if (resources) union.resources = resources;
  const prompts = flagsOf(
    declared.map((d) => d.prompts as Flags),
    ['listChanged'],
  );
  if (prompts) union.prompts = prompts;
  if (declared.some((d) => d.completions !== undefined)) union.completions = {};
  if (declared.some((d) => d.logging !== undefined)) union.logging = {};
  const tasks = declared.map(
    (d) => d.tasks as { list?: unknown; cancel?: unknown; requests?: { tools?: { call?: unknown } } } | undefined,
  );
  // factorly runs tasks itself (listing and cancelling included) for the tool calls an upstream takes as tasks.
  if (tasks.some((t) => t?.requests?.tools?.call !== undefined))
    union.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  return union;
}

function flagsOf(all: Flags[], flags: readonly string[]): Record<string, boolean> | undefined {
  const present = all.filter((each) => each !== undefined);
  if (present.length === 0) return undefined;
  return Object.fromEntries(
    flags.filter((flag) => present.some((each) => each![flag] === true)).map((flag) => [flag, true]),
  );
}
