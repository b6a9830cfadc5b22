import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempProject } from '../../../test/helpers/project.js';
import { SERVE_CONFIG } from './fixture-config.js';
import { announcesConfigChanges, confirmsByElicitation, deniesWithoutElicitation, text } from './scenarios.js';
import { eventually, projectEvents, stdioClient } from './serve-process.js';

type Client = Awaited<ReturnType<typeof stdioClient>>['client'];
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function connect(
  root: string,
  args: string[] = [],
  capabilities = {},
): Promise<Awaited<ReturnType<typeof stdioClient>>> {
  const session = await stdioClient(root, args, capabilities);
  open.push(session.client);
  return session;
}

describe('factorly serve (stdio)', () => {
  it('lists visible, non-denied tools with real schemas, built-ins included', async () => {
    const { client } = await connect(tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG }));
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'repeat',
        'stats',
        'fail',
        'guarded',
        'factorly.fetch',
        'factorly.shell',
        'factorly.help',
        'factorly.ask',
        'factorly.code',
      ]),
    );
    expect(names).not.toContain('forbidden');
    expect(tools.find((tool) => tool.name === 'repeat')).toMatchObject({
      description: 'Repeat a word.',
      inputSchema: {
        type: 'object',
        properties: {
          word: { type: 'string', description: 'The word.' },
          times: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
          mood: { type: 'string', enum: ['calm', 'loud'] },
        },
        required: ['word'],
      },
    });
  });

  it('calls with typed arguments, returns errors as isError results and JSON output as structured content', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const { client } = await connect(root);
    expect(await client.callTool({ name: 'repeat', arguments: { word: 'ab', times: 3 } })).toEqual({
      content: [{ type: 'text', text: 'ababab' }],
    });
    expect(await client.callTool({ name: 'stats', arguments: {} })).toMatchObject({
      structuredContent: { ok: true, n: 3 },
    });
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain('partial');
    const missing = await client.callTool({ name: 'repeat', arguments: { times: 9 } });
    expect(missing).toMatchObject({ isError: true });
    expect(text(missing)).toBe(
      'parameter validation failed for "repeat": required parameter "word" missing; times: must be at most 5, got 9',
    );
    const denied = await client.callTool({ name: 'forbidden', arguments: {} });
    expect(text(denied)).toBe('tool "forbidden" is denied by shadow policy');
    const unknown = await client.callTool({ name: 'repeet', arguments: {} });
    expect(text(unknown)).toContain('tool "repeet" not found');
  });

  it('stops the tool when the client cancels the request, and records the cancellation', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const { client } = await connect(root);
    const controller = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 400);
    await expect(call).rejects.toThrow(/abort/i);
    const completed = await eventually(async () => {
      const found = (await projectEvents(root)).find((e) => e.type === 'call.completed');
      expect(found).toBeDefined();
      return found!.data as { status: string; exitCode: number; error?: string; output: { text: string } };
    });
    expect(completed).toMatchObject({
      status: 'cancelled',
      exitCode: 130,
      error: 'cancelled: the caller cancelled the call',
    });
    expect(completed.output.text).toBe('');
  });

  it('records the session with the client name, and the session id as the agent id of every call', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const { client } = await connect(root);
    await client.callTool({ name: 'repeat', arguments: { word: 'x' } });
    await client.close();
    const events = await eventually(async () => {
      const all = await projectEvents(root);
      expect(all.some((e) => e.type === 'session.closed')).toBe(true);
      return all;
    });
    const opened = events.find((e) => e.type === 'session.opened')!.data as {
      sessionId: string;
      agentId: string;
      client: unknown;
      transport: string;
    };
    expect(opened).toMatchObject({
      client: { name: 'stdio-test', version: '0.9.0' },
      transport: 'stdio',
      agentId: opened.sessionId,
    });
    const requested = events.find((e) => e.type === 'call.requested')!.data as {
      agentId: string;
      sessionId: string;
      iface: string;
    };
    expect(requested).toMatchObject({ iface: 'mcp', agentId: opened.sessionId, sessionId: opened.sessionId });
  });

  it('asks for confirmation by elicitation: accept with approve runs the call, decline or approve=false blocks it', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    await confirmsByElicitation(root, async (capabilities) => (await connect(root, [], capabilities)).client);
  });

  it('denies a confirmable call from a client without elicitation, saying why', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    await deniesWithoutElicitation(
      async (capabilities) => (await connect(root, [], capabilities)).client,
      'stdio-test',
    );
  });

  it('sends tools/list_changed when the config changes on disk, and serves the new catalogue; a broken edit keeps the old one', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const session = await connect(root);
    await announcesConfigChanges(root, async () => session.client);
    writeFileSync(join(root, '.factorly', 'extra.yaml'), 'tools:\n  added: [\n');
    await eventually(() =>
      expect(session.stderr()).toContain('the edited config does not load, still serving the previous tools'),
    );
    expect((await session.client.listTools()).tools.map((t) => t.name)).toContain('added');
  });

  it('code mode: only execute, search and describe; a program reaches every tool through tools.*', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': SERVE_CONFIG });
    const { client } = await connect(root, ['--code-mode']);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['describe', 'execute', 'search']);
    expect(tools.find((t) => t.name === 'execute')!.description).toContain('repeat');
    const run = await client.callTool({
      name: 'execute',
      arguments: { code: "const r = await tools.repeat({ word: 'hi', times: 2 }); return r.toUpperCase();" },
    });
    expect(text(run)).toContain('HIHI');
    const found = await client.callTool({ name: 'search', arguments: { query: 'repeat word' } });
    expect(text(found)).toContain('"path":"tools.repeat"');
    const described = JSON.parse(
      text(await client.callTool({ name: 'describe', arguments: { paths: ['tools.repeat'] } })),
    ) as { items: { path: string }[]; missing: unknown[] };
    expect(described.items.map((item) => item.path)).toEqual(['tools.repeat']);
    expect(described.missing).toEqual([]);
    const events = await projectEvents(root);
    const inner = events
      .filter((e) => e.type === 'call.requested')
      .map((e) => e.data as { tool: string; iface: string; parentId?: string });
    expect(inner).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: 'factorly.code', iface: 'mcp' }),
        expect.objectContaining({ tool: 'repeat', iface: 'code' }),
      ]),
    );
  });
});
