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

/**
 * factorly.ask by elicitation: the question reaches the agent's client as a one-field form typed as
 * asked, the answer comes back checked (one that does not fit is refused), a dismissal is told as
 * such, and every question and answer is recorded.
 */
export async function asksByElicitation(root: string, connect: Connect): Promise<void> {
  const client = await connect({ elicitation: {} });
  const answers = [
    { action: 'accept', content: { region: 'us' } },
    { action: 'cancel' },
    { action: 'accept', content: { region: 'mars' } },
  ];
  const forms: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    forms.push(request.params);
    return answers.shift() as never;
  });
  const ask = { name: 'region', description: 'Where should it run?', choices: 'eu,us', default: 'eu' };
  expect(await client.callTool({ name: 'factorly.ask', arguments: ask })).toEqual({
    content: [{ type: 'text', text: 'us' }],
  });
  expect(forms[0]).toMatchObject({
    mode: 'form',
    message: 'Where should it run?',
    requestedSchema: {
      type: 'object',
      properties: { region: { type: 'string', title: 'region', enum: ['eu', 'us'], default: 'eu' } },
      required: [],
    },
  });
  expect(text(await client.callTool({ name: 'factorly.ask', arguments: ask }))).toBe(
    'factorly.ask: user cancelled the prompt',
  );
  expect(text(await client.callTool({ name: 'factorly.ask', arguments: ask }))).toBe(
    'factorly.ask: "region" could not be asked: failed: the answer was refused: must be one of: eu, us',
  );
  const events = await projectEvents(root);
  expect(events.filter((e) => e.type === 'ask.requested').map((e) => e.data)).toEqual(
    Array(3).fill(
      expect.objectContaining({ channels: ['mcp-elicitation'], question: expect.objectContaining({ name: 'region' }) }),
    ),
  );
  expect(events.filter((e) => e.type === 'ask.resolved').map((e) => e.data)).toEqual([
    expect.objectContaining({ action: 'accept', answer: 'us', by: expect.stringMatching(/\(elicitation: accept\)$/) }),
    expect.objectContaining({ action: 'cancel' }),
    expect.objectContaining({ action: 'failed' }),
  ]);
}

/** A client without elicitation, with no web UI running either, gets a denial that says why. */
export async function deniesWithoutElicitation(connect: Connect, clientName: string): Promise<void> {
  const client = await connect({});
  const result = await client.callTool({ name: 'guarded', arguments: { what: 'x' } });
  expect(result).toMatchObject({ isError: true });
  expect(text(result)).toBe(
    `tool "guarded" requires confirmation but no confirm channel is available: the MCP client "${clientName}" does not support elicitation, so it cannot be asked; no factorly ui is running for this project (start \`factorly ui\` to approve calls on its Approvals page)`,
  );
  const asked = await client.callTool({ name: 'factorly.ask', arguments: { name: 'region' } });
  expect(asked).toMatchObject({ isError: true });
  expect(text(asked)).toBe(
    `factorly.ask: nobody can be asked "region" (the MCP client "${clientName}" does not support elicitation, so it cannot be asked): run \`factorly ui\` for this project and answer on its Approvals page, or call from an MCP client that supports elicitation, or from \`factorly call\` in a terminal`,
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
