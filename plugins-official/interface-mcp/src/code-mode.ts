import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import { CODE_TOOL } from '@factorly/plugin-provider-code/api';
import type { CallGateway, ClientLink, Params } from 'factorly';
import { toMcpResult, type McpCallResult } from './call-result.js';
import { exposedTools } from './exposure.js';
import type { CodeModeTools, McpSession, McpToolEntry } from './session.js';

// Code mode is a front for CODE_TOOL, so every run is an ordinary, promotable script call.
export { CODE_TOOL };
const CATALOG_CHARS = 2_000;
const DECLARES_RUN = /\basync\s+function\s+run\s*\(/;

/**
 * `serve --code-mode`: the agent sees `execute` (one JavaScript program per turn, every tool
 * reachable as `tools.<namespace>.<tool>(args)`), `search` and `describe` instead of the catalogue.
 * Each is a `factorly.code` run through the gateway, so governance, budgets and the log apply as
 * for any script, and a good `execute` can be saved as a tool.
 */
export function codeModeTools(gateway: CallGateway, policies?: ShadowPolicies): CodeModeTools {
  return {
    list: (agentId) => entries(gateway, policies, agentId),
    call: (name, args, session, client, signal) => callCodeMode(name, args, session, client, signal),
  };
}

async function callCodeMode(
  name: string,
  args: Params,
  session: McpSession,
  client: ClientLink,
  signal: AbortSignal,
): Promise<McpCallResult> {
  const run = async (params: Params): Promise<McpCallResult> =>
    toMcpResult(await session.callGateway(CODE_TOOL, params, client, signal));
  switch (name) {
    case 'execute': {
      if (typeof args.code !== 'string') return refused('execute takes { code: string }');
      return run({ code: asScript(args.code) });
    }
    case 'search':
      return run({ code: 'async function run(params) { return await tools.search(params); }', params: args });
    case 'describe':
      return run({ code: 'async function run(params) { return await tools.search.describe(params); }', params: args });
    default:
      return refused(`tool "${name}" not found; in code mode the tools are execute, search and describe`);
  }
}

/** A program that does not declare `run` is taken as its body (so `return` and `await` work at top level). */
export function asScript(code: string): string {
  return DECLARES_RUN.test(code) ? code : `async function run(params) {\n${code}\n}`;
}

function refused(text: string): McpCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function entries(gateway: CallGateway, policies?: ShadowPolicies, agentId?: string): McpToolEntry[] {
  return [
    {
      name: 'execute',
      description: executeDescription(gateway, policies, agentId),
      inputSchema: {
        type: 'object',
        properties: {
          code: {
            type: 'string',
            maxLength: 65_536,
            description:
              'JavaScript: a program body (top-level await and return work) or a script declaring async function run(params).',
          },
        },
        required: ['code'],
      },
    },
    {
      name: 'search',
      description:
        'Find tools: ranked pages of { path, description, input } with namespaces, remaining and next (the same as tools.search inside execute).',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Words to match; empty browses everything.' },
          namespace: { type: 'string', description: 'Only tools under this namespace.' },
          limit: { type: 'integer', minimum: 1 },
          offset: { type: 'integer', minimum: 0 },
        },
      },
    },
    {
      name: 'describe',
      description:
        'Whole descriptions and TypeScript signatures of tools by path; unknown paths come back in missing with close matches.',
      inputSchema: {
        type: 'object',
        properties: { paths: { type: 'array', items: { type: 'string' }, minItems: 1 } },
        required: ['paths'],
      },
    },
  ];
}

/** How to write a program, then as much of the catalogue as fits a small budget (search finds the rest). */
function executeDescription(gateway: CallGateway, policies?: ShadowPolicies, agentId?: string): string {
  const names = exposedTools(gateway.tools(), 'local', policies, agentId)
    .map((tool) => tool.name)
    .filter((name) => name !== CODE_TOOL);
  let catalog = '';
  for (const [index, name] of names.entries()) {
    const next = `${catalog}${catalog ? ', ' : ''}${name}`;
    if (next.length > CATALOG_CHARS) {
      catalog += `, … and ${names.length - index} more (use search)`;
      break;
    }
    catalog = next;
  }
  return [
    'Run one JavaScript program that calls tools: `await tools.<namespace>.<tool>(args)` (a tool named a.b is tools.a.b),',
    '`await tools.search({ query })` finds tools, `await tools.search.describe({ paths })` shows their signatures.',
    'Return the value you want back. No imports, network, filesystem or timers: a tool call is the only way out.',
    `Tools: ${catalog || 'none'}.`,
  ].join('\n');
}
