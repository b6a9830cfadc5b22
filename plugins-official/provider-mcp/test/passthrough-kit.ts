// The pass-through tests' kernel: provider-mcp fronting the conformance upstream, and an agent session's side of the channel.
import { resolve } from 'node:path';
import type { McpSessionLink } from '@factorly/plugin-interface-mcp/api';
import type { ClientLink } from 'factorly';
import type { Kernel } from 'factorly/testing';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { REPO } from '../../../test/helpers/project.js';
import { plugin as mcpPlugin } from '../src/plugin.js';
import { interfaceParts } from '../../../test/helpers/mcp-interface-parts.js';
import { childProcesses } from './processes.js';

export const UPSTREAM = resolve(REPO, 'test', 'fixtures', 'conformance-upstream', 'server.mjs');
export const upstreams = () => childProcesses().filter((child) => child.args.includes(UPSTREAM));

let kernel: Kernel | undefined;

/** Keeps `started` to be stopped by `stopKernel` (for a test that makes its own). */
export function keep(started: Kernel): Kernel {
  kernel = started;
  return started;
}

/** Stops the kernel the last `start` (or `keep`) made: each test file runs it after each test. */
export async function stopKernel(): Promise<void> {
  await kernel?.stop();
  kernel = undefined;
}

export const entry = (name: string, prefix: boolean) =>
  `  ${name}: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(UPSTREAM)}, stdio], prefix: ${prefix}}\n`;

/** A kernel fronting the conformance upstream over stdio (as `up`, or as each of `names` with prefixes), and the pass-through the MCP interface would get. */
export async function start(names?: string[]) {
  const parts = interfaceParts();
  const tools = names ? names.map((name) => entry(name, true)).join('') : entry('up', false);
  const started = await startTestKernel(`tools:\n${tools}`, [mcpPlugin, ...parts.plugins]);
  kernel = started.kernel;
  return { ...started, passthrough: parts.passthrough() };
}

/** An agent session's side of the channel: records what reaches it and answers requests with `answers`. */
export function agent(
  sessionId: string,
  capabilities: Record<string, unknown>,
  answers: Record<string, Record<string, unknown>> = {},
) {
  const seen: { via: 'call' | 'session'; method: string; params: Record<string, unknown> }[] = [];
  const channel = (via: 'call' | 'session') => ({
    notify: async (method: string, params: Record<string, unknown>) => void seen.push({ via, method, params }),
    request: async (method: string, params: Record<string, unknown>) => {
      seen.push({ via, method, params });
      if (!answers[method])
        throw Object.assign(new Error(`MCP error -32601: ${method} is not supported here`), { code: -32601 });
      return answers[method];
    },
  });
  const session: McpSessionLink = { sessionId, agentId: `agent-${sessionId}`, capabilities, ...channel('session') };
  const call = (progressToken?: string): ClientLink => ({ sessionId, progressToken, capabilities, ...channel('call') });
  return { session, call, seen };
}
