import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { startTestKernel, type TestKernel } from 'factorly/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONCE } from '../src/elicit-channel.js';
import { text } from './scenarios.js';
import { serveInProcess, type InProcessServe } from './serve-in-process.js';
import { httpClient } from './serve-process.js';

const TOKEN = 'tok-standing-5e2a';
const CONFIG = `tools:
  guarded:
    type: cli
    command: node
    args: ["-e", "process.stdout.write('ran')"]
    shadow: {confirm: {for: 30m}}
`;

let started: TestKernel;
let served: InProcessServe;
const clients: Client[] = [];

beforeAll(async () => {
  started = await startTestKernel(CONFIG, [], { official: ['provider-cli', 'shadow', 'interface-mcp'] });
  served = await serveInProcess(started, { token: TOKEN });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await served?.stop();
  await started?.stop();
});

/** A client whose person answers each elicitation with the next of `answers`, and keeps the forms asked. */
async function agent(
  answers: ElicitRequest['params'][],
): Promise<{ client: Client; forms: ElicitRequest['params'][] }> {
  const client = await httpClient(served.url, TOKEN, { elicitation: {} });
  clients.push(client);
  const forms: ElicitRequest['params'][] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    forms.push(request.params);
    return answers.shift() as never;
  });
  return { client, forms };
}

describe('standing approvals by elicitation', () => {
  it('offers "for 30 minutes" beside this call only; the choice stands for that agent, "this call only" for one call', async () => {
    const approve = (remember: string) => ({ action: 'accept', content: { approve: true, remember } }) as never;
    const first = await agent([approve('for 30 minutes')]);
    expect(text(await first.client.callTool({ name: 'guarded', arguments: {} }))).toBe('ran');
    expect(first.forms[0]).toHaveProperty('requestedSchema');
    expect((first.forms[0] as { requestedSchema: object }).requestedSchema).toMatchObject({
      properties: { approve: { type: 'boolean' }, remember: { enum: [ONCE, 'for 30 minutes'], default: ONCE } },
      required: ['approve'],
    });
    expect(text(await first.client.callTool({ name: 'guarded', arguments: {} }))).toBe('ran');
    expect(first.forms).toHaveLength(1);

    // Another session is another agent (the token names none): it is asked, and "this call only" approves one call.
    const second = await agent([approve(ONCE), { action: 'decline' } as never]);
    expect(text(await second.client.callTool({ name: 'guarded', arguments: {} }))).toBe('ran');
    expect(text(await second.client.callTool({ name: 'guarded', arguments: {} }))).toBe(
      'tool "guarded": confirmation declined',
    );
    expect(second.forms).toHaveLength(2);

    const granted = (await started.events()).filter((event) => event.type === 'approval.granted');
    expect(granted.map((event) => event.data)).toEqual([
      expect.objectContaining({
        kind: 'window',
        label: 'for 30 minutes',
        channel: 'mcp-elicitation',
        by: 'http-test (elicitation: accept, approve=true), for 30 minutes',
      }),
    ]);
  });
});
