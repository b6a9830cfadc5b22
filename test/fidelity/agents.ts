import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { BIN, makeProject } from '../helpers/project.js';
import { isolatedEnv, spawnListening } from '../helpers/listening.js';

/** Results as they came over the wire: no SDK schema strips a field the comparison should see. */
export const Raw = z.looseObject({});
export type RawResult = Record<string, unknown>;

/** An agent that can sample, elicit and list roots, as a capable MCP client (MCP Inspector, Claude Code) declares. */
export interface Agent {
  client: Client;
  /** Resolves at the first `notifications/tools/list_changed` the agent receives. */
  listChanged: Promise<void>;
  /** The prompts sampling requests carried, in order. */
  sampled: string[];
  /** Messages elicitation requests carried, in order. */
  elicited: string[];
  /** The project whose event log records the calls (factorly targets only). */
  root?: string;
  stderr(): string;
  close(): Promise<void>;
}

/** How a fidelity case reaches the upstream: directly, or through one of factorly's ways of serving it. */
export interface Target {
  name: string;
  /** Whether calls go through factorly (and so are recorded in `root`'s log). */
  factorly: boolean;
  connect(): Promise<Agent>;
}

export const CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };
export const SAMPLED_REPLY = 'a reply from the agent';

/**
 * The targets a fidelity suite compares: the server straight over stdio, and factorly in front of it
 * as `serve` and `wrap`, each over stdio and Streamable HTTP. `serveYaml` is the config entry (with
 * `prefix: false`, so names match); `command` is the upstream's command line; `rootsDir` is what the
 * agent answers `roots/list` with.
 */
export function targets(options: { serveYaml: string; command: string[]; rootsDir: string }): Target[] {
  const [command, ...args] = options.command;
  return [
    { name: 'direct', factorly: false, connect: () => stdioAgent(command!, args, options.rootsDir) },
    {
      name: 'serve (stdio)',
      factorly: true,
      connect: () =>
        stdioAgent(
          process.execPath,
          [BIN, 'serve'],
          options.rootsDir,
          project({ '.factorly/factorly.yaml': options.serveYaml }),
        ),
    },
    {
      name: 'serve --port',
      factorly: true,
      connect: () =>
        httpAgent(
          [BIN, 'serve', '--port', '0'],
          options.rootsDir,
          project({ '.factorly/factorly.yaml': options.serveYaml }),
        ),
    },
    // Without `--`: everything after the first word that is not a flag is the server's command line.
    {
      name: 'wrap (stdio)',
      factorly: true,
      connect: () =>
        stdioAgent(
          process.execPath,
          [BIN, 'wrap', ...options.command],
          options.rootsDir,
          project({ '.factorly/.keep': '' }),
        ),
    },
    {
      name: 'wrap --port',
      factorly: true,
      connect: () =>
        httpAgent(
          [BIN, 'wrap', '--port', '0', '--', ...options.command],
          options.rootsDir,
          project({ '.factorly/.keep': '' }),
        ),
    },
  ];
}

function newAgent(rootsDir: string): Omit<Agent, 'close' | 'stderr' | 'root'> {
  const client = new Client({ name: 'fidelity-agent', version: '1.0.0' }, { capabilities: CAPABILITIES });
  const sampled: string[] = [];
  const elicited: string[] = [];
  let changed!: () => void;
  const listChanged = new Promise<void>((resolve) => (changed = resolve));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: `file://${rootsDir}`, name: 'fidelity' }],
  }));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const content = request.params.messages[0]?.content as { text?: string } | undefined;
    sampled.push(String(content?.text));
    return {
      role: 'assistant',
      content: { type: 'text', text: SAMPLED_REPLY },
      model: 'fidelity-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicited.push(String(request.params.message));
    const asked =
      (request.params as { requestedSchema?: { properties?: Record<string, unknown> } }).requestedSchema?.properties ??
      {};
    return {
      action: 'accept',
      content: 'interpretation' in asked ? { interpretation: 'historical' } : { name: 'Ada' },
    };
  });
  return { client, sampled, elicited, listChanged };
}

async function stdioAgent(command: string, args: string[], rootsDir: string, root?: string): Promise<Agent> {
  const agent = newAgent(rootsDir);
  const env = root ? isolatedEnv(root) : undefined;
  const transport = new StdioClientTransport({ command, args, cwd: root, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  await agent.client.connect(transport);
  return { ...agent, root, stderr: () => stderr, close: () => agent.client.close() };
}

async function httpAgent(args: string[], rootsDir: string, root: string): Promise<Agent> {
  const served = await spawnListening(args, { cwd: root, env: isolatedEnv(root) });
  const agent = newAgent(rootsDir);
  await agent.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  return {
    ...agent,
    root,
    stderr: served.stderr,
    close: async () => {
      await agent.client.close();
      await served.stop();
    },
  };
}

const made: string[] = [];

/** A project directory that lives as long as the suite (test/helpers' temp projects go after each test). */
export function project(files: Record<string, string>): string {
  const root = makeProject(files);
  made.push(root);
  return root;
}

/**
 * Connects an agent to every target before the suite's cases (all at once: each is its own
 * process) and closes them, and removes the projects, after. Returns the agent of a target by name.
 */
export function agentsFor(all: readonly Target[]): (name: string) => Agent {
  const agents = new Map<string, Agent>();
  beforeAll(async () => {
    await Promise.all(all.map(async (target) => agents.set(target.name, await target.connect())));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([...agents.values()].map((each) => each.close()));
    removeProjects();
  });
  return (name) => agents.get(name)!;
}

/** Removes the suite's projects (for suites that start their processes themselves, after stopping them). */
export function removeProjects(): void {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** One request, answered as it came over the wire. */
export function raw(
  agent: Agent,
  method: string,
  params?: Record<string, unknown>,
  options: { signal?: AbortSignal; onprogress?: () => void } = {},
): Promise<RawResult> {
  return agent.client.request({ method, ...(params ? { params } : {}) } as never, Raw, options);
}

/** Every tool the server lists to this agent, page after page, as the wire carried them. */
export async function listTools(agent: Agent): Promise<RawResult[]> {
  const tools: RawResult[] = [];
  let cursor: string | undefined;
  do {
    const page = await raw(agent, 'tools/list', cursor === undefined ? undefined : { cursor });
    tools.push(...(page.tools as RawResult[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor);
  return tools;
}
