import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO, tempProject } from '../helpers/project.js';
import { projectEvents } from '../helpers/events.js';
import { isolatedEnv, spawnListening } from '../helpers/listening.js';

const UPSTREAM = resolve(REPO, 'test', 'fixtures', 'conformance-upstream', 'server.mjs');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `factorly serve --port 0` fronting the conformance upstream; resolves to its URL. */
async function serve(root: string): Promise<string> {
  const listening = await spawnListening([BIN, 'serve', '--port', '0'], { cwd: root, env: isolatedEnv(root) });
  cleanups.push(() => listening.stop().then(() => undefined));
  return listening.url;
}

/** An agent whose sampling handler answers `reply` and counts what it was asked. */
async function agent(url: string, reply: string) {
  const client = new Client({ name: `agent-${reply}`, version: '1' }, { capabilities: { sampling: {} } });
  const asked: string[] = [];
  const logs: unknown[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0].content as { text?: string };
    asked.push(String(content.text));
    return { role: 'assistant', content: { type: 'text', text: reply }, model: 'm', stopReason: 'endTurn' };
  });
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (notification) => void logs.push(notification.params.data),
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return { client, asked, logs };
}

describe('factorly serve --port in front of an upstream MCP server', () => {
  it('sends each session only its own sampling requests, relays progress and logs before the result, and records it all', async () => {
    const root = tempProject({
      '.factorly/factorly.yaml': `tools:\n  up: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(UPSTREAM)}, stdio], prefix: false}\n`,
    });
    const url = await serve(root);
    const [a, b] = await Promise.all([agent(url, 'reply A'), agent(url, 'reply B')]);
    const [fromA, fromB] = await Promise.all([
      a.client.callTool({ name: 'test_sampling', arguments: { prompt: 'asked by A' } }),
      b.client.callTool({ name: 'test_sampling', arguments: { prompt: 'asked by B' } }),
    ]);
    expect(fromA.content).toEqual([{ type: 'text', text: 'LLM response: reply A' }]);
    expect(fromB.content).toEqual([{ type: 'text', text: 'LLM response: reply B' }]);
    expect([a.asked, b.asked]).toEqual([['asked by A'], ['asked by B']]);

    const progress: number[] = [];
    const result = await a.client.request(
      { method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {} } },
      CallToolResultSchema,
      {
        onprogress: (update) => void progress.push(update.progress),
      },
    );
    expect(progress).toEqual([0, 50, 100]);
    expect(result.content).toEqual([{ type: 'text', text: 'Progress tool finished' }]);

    await b.client.setLoggingLevel('info');
    await b.client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(b.logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    expect(a.logs).toEqual([]);

    const error = await a.client.callTool({ name: 'test_error_handling', arguments: {} });
    expect(error).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
    });
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();

    const log = await projectEvents(root);
    const opened = log
      .filter((event) => event.type === 'session.opened')
      .map((event) => event.data as { sessionId: string; client?: { name: string } });
    const sessionOf = (name: string) => opened.find((session) => session.client?.name === name)!.sessionId;
    const sampling = log
      .filter((event) => event.type === 'mcp.forwarded')
      .map((event) => event.data as { method: string; sessionId: string })
      .filter((data) => data.method === 'sampling/createMessage');
    expect(sampling.map((data) => data.sessionId).sort()).toEqual(
      [sessionOf('agent-reply A'), sessionOf('agent-reply B')].sort(),
    );
  });
});
