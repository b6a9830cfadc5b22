import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { tempProject } from '../../../test/helpers/project.js';
import { serveClient, upstreamFixture } from './serve-client.js';

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

describe("an agent's cancel reaches the upstream server", () => {
  it("with the reason the agent gave, not factorly's own words", { timeout: 30_000 }, async () => {
    const root = tempProject({
      '.factorly/factorly.yaml': `tools:\n  up:\n    type: mcp\n    ${upstreamFixture('cancel')}\n`,
    });
    const { client } = await serveClient(root);
    open.push(client);
    const stop = new AbortController();
    const waiting = client.callTool({ name: 'up.wait', arguments: {} }, undefined, {
      signal: stop.signal,
      // The server has the call once it reports progress on it.
      onprogress: () => stop.abort('the agent changed its mind'),
    });
    await expect(waiting).rejects.toThrow(/the agent changed its mind/);
    const told = await client.callTool({ name: 'up.last-cancel', arguments: {} });
    expect(told.content).toEqual([{ type: 'text', text: 'the agent changed its mind' }]);
  });

  it('and only a cancel: a call the server answered is not cancelled afterwards', { timeout: 30_000 }, async () => {
    const root = tempProject({
      '.factorly/factorly.yaml': `tools:\n  up:\n    type: mcp\n    ${upstreamFixture('cancel')}\n`,
    });
    const { client } = await serveClient(root);
    open.push(client);
    for (let i = 0; i < 3; i += 1) await client.callTool({ name: 'up.last-cancel', arguments: {} });
    const told = await client.callTool({ name: 'up.cancels', arguments: {} });
    expect(told.content).toEqual([{ type: 'text', text: '[]' }]);
  });
});
