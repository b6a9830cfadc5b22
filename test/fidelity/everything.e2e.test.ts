import { createRequire } from 'node:module';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { projectEvents } from '../helpers/events.js';
import { agentsFor, listTools, raw, SAMPLED_REPLY, targets, type Agent, type RawResult } from './agents.js';

// server-everything straight over stdio, and through factorly (`serve` and `wrap`, stdio and
// Streamable HTTP), driven by an agent that declares sampling, elicitation and roots. What the agent
// sees must be the same; the only differences allowed are the ones the README lists.

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const ROOTS = '/tmp/fidelity-roots';
const SERVE_YAML = `tools:\n  everything: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio], prefix: false}\n`;
const ALL = targets({ serveYaml: SERVE_YAML, command: [process.execPath, EVERYTHING, 'stdio'], rootsDir: ROOTS });
const THROUGH_FACTORLY = ALL.filter((target) => target.factorly);
const CAPABILITY_TOOLS = ['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list'];

const agent = agentsFor(ALL);
const direct = (): Agent => agent('direct');

/** A tool's result, asked of the server directly and through the target, as the wire carried them. */
async function bothAnswers(
  target: string,
  name: string,
  args: Record<string, unknown>,
): Promise<[RawResult, RawResult]> {
  return Promise.all([
    raw(direct(), 'tools/call', { name, arguments: args }),
    raw(agent(target), 'tools/call', { name, arguments: args }),
  ]);
}

// The targets are independent processes: their cases run side by side.
describe.concurrent.each(THROUGH_FACTORLY)('server-everything through factorly $name', ({ name }) => {
  it('lists every tool exactly as the server does: title, annotations, outputSchema, execution, _meta, in order', async () => {
    const [expected, seen] = await Promise.all([listTools(direct()), listTools(agent(name))]);
    expect(expected.map((tool) => tool.name)).toEqual(expect.arrayContaining(CAPABILITY_TOOLS));
    // serve adds factorly's own built-ins after the config's tools (wrap has none).
    const builtins = seen.filter((tool) => String(tool.name).startsWith('factorly.'));
    expect(builtins.length > 0).toBe(name.startsWith('serve'));
    expect(seen.filter((tool) => !builtins.includes(tool))).toEqual(expected);
  });

  it("forwards the server's tools/list_changed to the agent", async () => {
    await agent(name).listChanged;
    expect((await listTools(agent(name))).map((tool) => tool.name)).toEqual(expect.arrayContaining(CAPABILITY_TOOLS));
  });

  it('returns annotated, resource-link, image and structured results block for block, with annotations and _meta', async () => {
    for (const [tool, args] of [
      ['get-annotated-message', { messageType: 'error', includeImage: true }],
      ['get-annotated-message', { messageType: 'success', includeImage: false }],
      ['get-resource-links', { count: 4 }],
      ['get-tiny-image', {}],
      ['get-structured-content', { location: 'New York' }],
      ['echo', { message: 'line one\n\n\n\nline five {"a": 1}' }],
    ] as const) {
      const [expected, seen] = await bothAnswers(name, tool, args);
      expect(seen, tool).toEqual(expected);
    }
  });

  it('serves resources, resource templates, prompts and completions as the server does', async () => {
    const ask = (method: string, params: Record<string, unknown> = {}) =>
      Promise.all([raw(direct(), method, params), raw(agent(name), method, params)]);
    const [resources, seenResources] = await ask('resources/list');
    expect(seenResources).toEqual(resources);
    const uri = String((resources.resources as { uri: string }[])[0]!.uri);
    for (const [method, params] of [
      ['resources/templates/list', {}],
      ['resources/read', { uri }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'args-prompt', arguments: { city: 'Paris', state: 'Texas' } }],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } },
      ],
    ] as const) {
      const [expected, seen] = await ask(method, params);
      expect(seen, method).toEqual(expected);
    }
  });

  it("serves the tools that need the agent's capabilities, and their requests reach the agent", async () => {
    const asked = agent(name).sampled.length;
    const [expected, seen] = await bothAnswers(name, 'trigger-sampling-request', {
      prompt: 'sampled through factorly',
      maxTokens: 5,
    });
    expect(seen).toEqual(expected);
    expect(JSON.stringify(seen)).toContain(SAMPLED_REPLY);
    expect(agent(name).sampled.slice(asked)).toEqual([expect.stringContaining('sampled through factorly')]);
    const [elicitExpected, elicitSeen] = await bothAnswers(name, 'trigger-elicitation-request', {});
    expect(elicitSeen).toEqual(elicitExpected);
    expect(JSON.stringify(elicitSeen)).toContain('Ada');
    const [rootsExpected, rootsSeen] = await bothAnswers(name, 'get-roots-list', {});
    expect(rootsSeen).toEqual(rootsExpected);
    expect(JSON.stringify(rootsSeen)).toContain(ROOTS);
  });

  it("runs a task-augmented call (taskSupport: required) to the same result, the task's elicitation reaching the agent", async () => {
    /** The stream's final result, with the id of the task it belongs to (each server numbers its own tasks) as TASK. */
    const run = async (who: Agent): Promise<unknown> => {
      await who.client.listTools(); // the SDK client learns here which tools are task tools
      const stream = who.client.experimental.tasks.callToolStream(
        { name: 'simulate-research-query', arguments: { topic: 'fidelity', ambiguous: true } },
        CallToolResultSchema,
      );
      let taskId = '';
      let last: unknown;
      for await (const message of stream) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        last = message;
      }
      expect(taskId).not.toBe('');
      return JSON.parse(JSON.stringify(last).replaceAll(taskId, 'TASK'));
    };
    const [expected, seen] = await Promise.all([run(direct()), run(agent(name))]);
    expect(seen).toEqual(expected);
    expect(seen).toMatchObject({
      type: 'result',
      result: { content: [{ type: 'text', text: expect.stringContaining('Research Report: fidelity (historical)') }] },
    });
  });

  it('stops a task the agent cancels, and records its call as cancelled', async () => {
    const { client, root } = agent(name);
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'simulate-research-query', arguments: { topic: 'to be cancelled' } },
      CallToolResultSchema,
    );
    for await (const message of stream) {
      if (message.type !== 'taskCreated') continue;
      expect(await client.experimental.tasks.cancelTask(message.task.taskId)).toMatchObject({ status: 'cancelled' });
      break;
    }
    await vi.waitFor(
      async () => {
        const events = await projectEvents(root!);
        const research = events.filter(
          (event) =>
            event.type === 'call.requested' &&
            (event.data as { params: { topic?: string } }).params.topic === 'to be cancelled',
        );
        const callIds = research.map((event) => (event.data as { callId: string }).callId);
        const completed = events.filter(
          (event) => event.type === 'call.completed' && callIds.includes((event.data as { callId: string }).callId),
        );
        expect(completed.map((event) => (event.data as { status: string }).status)).toEqual(['cancelled']);
      },
      { timeout: 15_000, interval: 100 },
    );
  });

  it('records a call the agent cancels as cancelled', async () => {
    const controller = new AbortController();
    const call = raw(
      agent(name),
      'tools/call',
      { name: 'trigger-long-running-operation', arguments: { duration: 60, steps: 60 } },
      { signal: controller.signal, onprogress: () => controller.abort('the agent changed its mind') },
    );
    await expect(call).rejects.toThrow();
    await vi.waitFor(
      async () => {
        const completed = (await projectEvents(agent(name).root!))
          .filter((event) => event.type === 'call.completed')
          .map((event) => event.data as { status: string; exitCode: number });
        expect(completed).toContainEqual(expect.objectContaining({ status: 'cancelled' }));
      },
      { timeout: 15_000, interval: 100 },
    );
  });
});

describe('what the agent is told at initialize', () => {
  it('wrap introduces the server as itself: its server info, instructions and capabilities', () => {
    for (const name of ['wrap (stdio)', 'wrap --port']) {
      const { client } = agent(name);
      expect(client.getServerVersion(), name).toEqual(direct().client.getServerVersion());
      expect(client.getInstructions(), name).toBe(direct().client.getInstructions());
      expect(client.getServerCapabilities(), name).toEqual(direct().client.getServerCapabilities());
    }
  });

  it("serve declares the upstream's capabilities and gives its instructions under its name", () => {
    for (const name of ['serve (stdio)', 'serve --port']) {
      const { client } = agent(name);
      expect(client.getServerVersion()?.name, name).toBe('factorly');
      expect(client.getServerCapabilities(), name).toEqual(direct().client.getServerCapabilities());
      expect(client.getInstructions(), name).toContain(`## everything\n\n${direct().client.getInstructions()}`);
    }
  });
});
