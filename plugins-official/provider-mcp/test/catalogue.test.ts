import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { plugin as shadowPlugin } from '@factorly/plugin-shadow';
import type { CatalogChange, ClientLink } from 'factorly';
import type { Kernel } from 'factorly/testing';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as mcpPlugin } from '../src/plugin.js';
import { interfaceParts } from '../../../test/helpers/mcp-interface-parts.js';

const SERVER = resolve(import.meta.dirname, 'fixtures', 'growing-server.mjs');

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

/** A kernel fronting the growing server, with what an MCP interface would get: the pass-through and the gateway. */
async function start() {
  const parts = interfaceParts();
  kernel = (
    await startTestKernel(
      `tools:\n  up: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}], shadow: {rate_limit: 100/min}}\n`,
      [mcpPlugin, shadowPlugin, ...parts.plugins],
    )
  ).kernel;
  const changes: CatalogChange[] = [];
  const gateway = parts.gateway();
  gateway.watchTools((change) => void changes.push(change));
  const names = (sessionId?: string) =>
    gateway
      .tools(sessionId)
      .map((tool) => tool.name)
      .filter((name) => name.startsWith('up.'));
  return { kernel, passthrough: parts.passthrough(), changes, names };
}

const link = (sessionId: string, capabilities: Record<string, unknown>): ClientLink & { agentId: string } => ({
  sessionId,
  agentId: sessionId,
  capabilities,
  notify: async () => undefined,
  request: async () => ({}),
});

describe('the catalogue follows what upstream servers list', () => {
  it("lists a server again when it says its tools changed, keeping the entry's rules and the declaration whole", async () => {
    const { kernel, changes, names } = await start();
    expect(names()).toEqual(['up.grow']);
    expect((await kernel.pipeline.call({ tool: 'up.grow', params: {}, iface: 'cli' })).output).toBe(
      'grow ran; tools grown: 1',
    );
    await vi.waitFor(() => expect(changes).toEqual([{ changed: true }]));
    expect(names()).toEqual(['up.grow', 'up.grown-1']);
    const grown = kernel.registry.get('up.grown-1')!;
    expect(grown).toMatchObject({
      expandedFrom: 'up',
      declared: { name: 'grown-1', title: 'The grown-1 tool', annotations: { readOnlyHint: true } },
    });
    expect(grown.shadow?.rate_limit).toBe('100/min');
    expect((await kernel.pipeline.call({ tool: 'up.grown-1', params: {}, iface: 'cli' })).status).toBe('success');
  });

  it('gives a session whose client can sample its own connection and the tools listed on it, and follows its changes for it alone', async () => {
    const { kernel, passthrough, changes, names } = await start();
    await passthrough.openSession(link('S', { sampling: {} }));
    expect(names('S')).toEqual(['up.grow', 'up.sample']);
    expect(names()).toEqual(['up.grow']);
    expect((await kernel.pipeline.call({ tool: 'up.sample', params: {}, iface: 'cli' })).status).toBe('blocked');
    const called = await kernel.pipeline.call({
      tool: 'up.sample',
      params: {},
      iface: 'mcp',
      sessionId: 'S',
      client: link('S', { sampling: {} }),
    });
    expect(called).toMatchObject({ status: 'success', output: 'sample ran; tools grown: 0' });
    await kernel.pipeline.call({
      tool: 'up.grow',
      params: {},
      iface: 'mcp',
      sessionId: 'S',
      client: link('S', { sampling: {} }),
    });
    await vi.waitFor(() => expect(names('S')).toEqual(['up.grow', 'up.sample', 'up.grown-1']));
    expect(changes).toContainEqual({ changed: true, sessionId: 'S' });
    expect(names()).toEqual(['up.grow']);
  });
});
