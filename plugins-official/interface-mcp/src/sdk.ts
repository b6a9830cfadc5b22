import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';

/** What a server says of itself at initialize: its name, what it offers, how to use it. */
export interface Introduction {
  info: { name: string; version: string; [key: string]: unknown };
  capabilities: Record<string, unknown>;
  instructions?: string;
}

/** The SDK's request schemas, imported once per `serve` (the SDK is loaded only when serving). */
export interface SdkSchemas {
  ListToolsRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').ListToolsRequestSchema;
}

/** The parts of the MCP SDK a serving interface uses, loaded on first use (not at every CLI boot). */
export interface Sdk {
  schemas: SdkSchemas;
  /** A server for one session; `taskStore` when it takes task-augmented calls. */
  newServer(introduction: Introduction, taskStore?: TaskStore): Server;
  /** A task store for one session (see TaskCalls). */
  newTaskStore(): TaskStore;
}

let loaded: Promise<Sdk> | undefined;

export function loadSdk(): Promise<Sdk> {
  loaded ??= (async () => {
    const [{ Server }, types, tasks] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('@modelcontextprotocol/sdk/experimental/tasks'),
    ]);
    return {
      schemas: { ListToolsRequestSchema: types.ListToolsRequestSchema },
      newServer: ({ info, capabilities, instructions }, taskStore) =>
        new Server(info, {
          capabilities,
          ...(instructions === undefined ? {} : { instructions }),
          ...(taskStore ? { taskStore, taskMessageQueue: new tasks.InMemoryTaskMessageQueue() } : {}),
        }),
      newTaskStore: () => new tasks.InMemoryTaskStore(),
    };
  })();
  return loaded;
}
