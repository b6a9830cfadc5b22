// The pins tests' kernel: provider-mcp fronting drifting servers (each listing read from a file the
// test rewrites), the shadow and pins plugins, the MCP interface's parts (to open agent sessions),
// and the code tool, over the project's own LMDB log.
import { plugin as quickjsPlugin } from '@factorly/plugin-engine-quickjs';
import { plugin as codePlugin } from '@factorly/plugin-provider-code';
import { plugin as mcpPlugin } from '@factorly/plugin-provider-mcp';
import { plugin as shadowPlugin } from '@factorly/plugin-shadow';
import type { CatalogChange, ClientLink, Recorded, ToolPins } from 'factorly';
import { startTestKernel, type TestKernel } from 'factorly/testing';
import { vi } from 'vitest';
import { interfaceParts } from '../../../test/helpers/mcp-interface-parts.js';
import { PinTokens } from '../src/api.js';
import { plugin as pinsPlugin } from '../src/plugin.js';

export { echo, listing, upstream, type Listed } from '../../../test/helpers/drifting-upstream.js';

export interface PinKernel extends TestKernel {
  pins: ToolPins;
  changes: CatalogChange[];
  /** The tools a listing shows (as the session sees them, when given). */
  names(sessionId?: string): string[];
  /** Opens an agent session whose client can sample (it gets its own upstream connection). */
  openSession(sessionId: string): Promise<ClientLink>;
  /** The events of the types given, in order. */
  eventsOf(...types: string[]): Promise<Recorded[]>;
}

export async function start(tools: string, options: { code?: boolean } = {}): Promise<PinKernel> {
  const parts = interfaceParts();
  const code = options.code ? [codePlugin, quickjsPlugin] : [];
  const started = await startTestKernel(
    `tools:\n${tools}`,
    [mcpPlugin, shadowPlugin, pinsPlugin, ...code, ...parts.plugins],
    { log: 'project' },
  );
  const gateway = parts.gateway();
  const changes: CatalogChange[] = [];
  gateway.watchTools((change) => void changes.push(change));
  return {
    ...started,
    pins: started.kernel.provided(PinTokens.Pins)!,
    changes,
    names: (sessionId) => gateway.tools(sessionId).map((tool) => tool.name),
    openSession: async (sessionId) => {
      const link = clientLink(sessionId);
      await parts.passthrough().openSession({ ...link, agentId: sessionId });
      return link;
    },
    eventsOf: async (...types) => (await started.events()).filter((event) => types.includes(event.type)),
  };
}

function clientLink(sessionId: string): ClientLink {
  return {
    sessionId,
    capabilities: { sampling: {} },
    notify: async () => undefined,
    request: async () => ({}),
  };
}

/**
 * Waits until the pins say `tool` is held: its hold recorded, not only left out of a listing. Each
 * try lists the tools, as an agent told its list changed does.
 */
export async function heldIn(kernel: PinKernel, tool: string): Promise<void> {
  await vi.waitFor(async () => {
    kernel.names();
    const state = (await kernel.pins.list()).find((pin) => pin.tool === tool)?.state;
    if (state !== 'held') throw new Error(`${tool} is ${state ?? 'not pinned'}`);
  });
}

/** Waits until the kernel's catalogue holds `tool` (listed or held). */
export async function known(kernel: PinKernel, tool: string): Promise<void> {
  await vi.waitFor(() => {
    if (!kernel.kernel.registry.get(tool)) throw new Error(`${tool} is not in the catalogue yet`);
  });
}

/** Waits until a listing of the kernel shows exactly `expected` of the tools of `entry`. */
export async function listed(kernel: PinKernel, entry: string, expected: string[], sessionId?: string): Promise<void> {
  await vi.waitFor(() => {
    const names = kernel.names(sessionId).filter((name) => name.startsWith(`${entry}.`));
    if (JSON.stringify(names) !== JSON.stringify(expected)) throw new Error(`listed ${names.join(', ')}`);
  });
}
