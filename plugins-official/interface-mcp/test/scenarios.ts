import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { eventually, projectEvents } from './serve-process.js';

/** Connects a client (named `clientName`) to a serve running in the project. */
export type Connect = (capabilities: ClientCapabilities) => Promise<Client>;

export const text = (result: object): string =>
  ((result as { content?: unknown }).content as { text?: string }[]).map((item) => item.text ?? '').join('');

/** Elicitation: accept+approve runs the call; decline and approve=false block it; every answer is recorded. */
export async function confirmsByElicitation(root: string, connect: Connect): Promise<void> {
  const client = await connect({ elicitation: {} });
  const answers = [
    { action: 'accept', content: { approve: true } },
    { action: 'decline' },
    { action: 'accept', content: { approve: false } },
  ];
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return answers.shift() as never;
  });
  expect(text(await client.callTool({ name: 'guarded', arguments: { what: 'deploy' } }))).toBe('ran deploy');
  const declined = await client.callTool({ name: 'guarded', arguments: { what: 'again' } });
  expect(declined).toMatchObject({
    isError: true,
    content: [{ type: 'text', text: 'tool "guarded": confirmation declined' }],
  });
  expect(text(await client.callTool({ name: 'guarded', arguments: { what: 'third' } }))).toBe(
    'tool "guarded": confirmation declined',
  );
  expect(asked[0]).toContain('Tool "guarded" requires confirmation');
  expect(asked[0]).toContain('"what": "deploy"');
  const resolved = (await projectEvents(root))
    .filter((e) => e.type === 'confirm.resolved')
    .map((e) => e.data as { approved: boolean; channel: string });
  expect(resolved).toEqual(
    [true, false, false].map((approved) => expect.objectContaining({ approved, channel: 'mcp-elicitation' })),
  );
}

/** A client without elicitation, with no web UI running either, gets a denial that says why. */
export async function deniesWithoutElicitation(connect: Connect, clientName: string): Promise<void> {
  const client = await connect({});
  const result = await client.callTool({ name: 'guarded', arguments: { what: 'x' } });
  expect(result).toMatchObject({ isError: true });
  expect(text(result)).toBe(
    `tool "guarded" requires confirmation but no confirm channel is available: the MCP client "${clientName}" does not support elicitation, so it cannot be asked; no factorly ui is running for this project (start \`factorly ui\` to approve calls on its Approvals page)`,
  );
}

/** An edit on disk sends list_changed and the new tool is listed and callable. */
export async function announcesConfigChanges(root: string, connect: Connect): Promise<void> {
  const client = await connect({});
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
  expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('added');
  writeFileSync(
    join(root, '.factorly', 'extra.yaml'),
    'tools:\n  added:\n    type: cli\n    command: echo\n    args: [new]\n',
  );
  await eventually(() => expect(changes).toBeGreaterThan(0));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('added');
  expect(text(await client.callTool({ name: 'added', arguments: {} }))).toBe('new\n');
}
