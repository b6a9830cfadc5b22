import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BIN, makeProject } from '../../../test/helpers/project.js';
import { isolatedEnv } from '../../../test/helpers/listening.js';

// server-everything directly and through `factorly serve`, driven by a real SDK client that
// declares the `tasks` capability (it runs sampling and elicitation as tasks of its own): what the
// agent sees must be the same both ways.
const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const YAML = `tools:\n  everything: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio], prefix: false}\n`;
const ASYNC_TOOLS = ['trigger-sampling-request-async', 'trigger-elicitation-request-async'];
const ARGUMENTS: Record<string, Record<string, unknown>> = { 'trigger-sampling-request-async': { prompt: 'p' } };
/** What the agent's own tasks say while they run, and how long it keeps them. */
const AGENT_STATUS = 'the agent is on it';
const AGENT_TTL = 61_000;
const Raw = z.looseObject({});

/**
 * The agent's task store: a task it runs for the server finishes when the server first asks how it
 * goes (so the server sees it working, with its statusMessage, then completed), no clock involved.
 */
class AgentTasks extends InMemoryTaskStore {
  readonly pending = new Map<string, Record<string, unknown>>();

  override async getTask(taskId: string, sessionId?: string) {
    const task = await super.getTask(taskId, sessionId);
    const result = this.pending.get(taskId);
    if (result && this.pending.delete(taskId))
      await this.storeTaskResult(taskId, 'completed', result as never, sessionId);
    return task;
  }
}

/** An agent that samples and elicits, each as a task when the server asks for one. */
function newAgent(): Client {
  const tasks = new AgentTasks();
  const client = new Client(
    { name: 'tasks-agent', version: '1.0.0' },
    {
      capabilities: {
        sampling: {},
        elicitation: { form: {} },
        tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
      },
      taskStore: tasks,
    },
  );
  const asTask = async (extra: { taskStore?: RequestTaskStore }, result: Record<string, unknown>) => {
    const task = await extra.taskStore!.createTask({ ttl: AGENT_TTL, pollInterval: 100 });
    await extra.taskStore!.updateTaskStatus(task.taskId, 'working', AGENT_STATUS);
    tasks.pending.set(task.taskId, result);
    return { task: { ...task, statusMessage: AGENT_STATUS } };
  };
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => {
    const result = { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm', stopReason: 'endTurn' };
    return (request.params.task ? asTask(extra as never, result) : result) as never;
  });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    const result = { action: 'accept', content: { name: 'Ada', color: 'blue' } };
    return (request.params.task ? asTask(extra as never, result) : result) as never;
  });
  return client;
}

let direct: Client;
let through: Client;
beforeAll(async () => {
  direct = newAgent();
  through = newAgent();
  const root = makeProject({ '.factorly/factorly.yaml': YAML });
  await Promise.all([
    direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'] })),
    through.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve'], cwd: root, env: isolatedEnv(root) }),
    ),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([direct.close(), through.close()]);
});

/** Each agent's own task ids, and the server's, differ run to run: they are masked. */
const masked = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value).replace(/\b[0-9a-f]{32}\b|[0-9a-f-]{36}/g, 'ID'));

describe('the tasks capability through factorly', () => {
  it('an agent declaring tasks sees the async trigger tools, as it does directly', { timeout: 60_000 }, async () => {
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
    const [expected, seen] = await Promise.all([names(direct), names(through)]);
    expect(expected).toEqual(expect.arrayContaining(ASYNC_TOOLS));
    expect(seen).toEqual(expect.arrayContaining(ASYNC_TOOLS));
  });

  for (const tool of ASYNC_TOOLS)
    it(
      `${tool}: the agent's task, its statusMessage and result reach the server as sent`,
      { timeout: 60_000 },
      async () => {
        const call = (client: Client) =>
          client.request({ method: 'tools/call', params: { name: tool, arguments: ARGUMENTS[tool] ?? {} } }, Raw);
        const [expected, seen] = await Promise.all([call(direct), call(through)]);
        expect(JSON.stringify(expected)).toContain(AGENT_STATUS);
        expect(masked(seen)).toEqual(masked(expected));
      },
    );

  it(
    "a server's task keeps the ttl it granted and its statusMessage through factorly",
    { timeout: 60_000 },
    async () => {
      const run = async (client: Client) => {
        await client.listTools();
        const stream = client.experimental.tasks.callToolStream(
          { name: 'simulate-research-query', arguments: { topic: 'ttl', ambiguous: false } },
          CallToolResultSchema,
          { task: { ttl: 120_000 } },
        );
        let taskId = '';
        for await (const message of stream) if (message.type === 'taskCreated') taskId = message.task.taskId;
        const {
          taskId: _id,
          createdAt: _c,
          lastUpdatedAt: _u,
          ...task
        } = await client.experimental.tasks.getTask(taskId);
        return task;
      };
      const [expected, seen] = await Promise.all([run(direct), run(through)]);
      expect(expected).toMatchObject({ status: 'completed', ttl: 300_000, statusMessage: expect.any(String) });
      expect(seen).toEqual(expected);
    },
  );
});
