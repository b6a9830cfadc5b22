import { writeStderrLine } from '@factorly/text-kit';
import type { UpstreamAuthProvider } from '@factorly/plugin-oauth/api';
import type { ClientLink, ToolDefinition } from 'factorly';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Connection, UpstreamClosedError, type ServerIntroduction } from './connection.js';
import type { McpTarget } from './mcp-spec.js';
import type { UpstreamResult } from './result.js';
import { Route } from './route.js';
import type { Sessions } from './sessions.js';

export { UpstreamClosedError };

/**
 * Client capabilities an upstream connection mirrors from the agent, as declared: the ones whose
 * requests it routes to the agent (`tasks`: the agent runs sampling and elicitation as its own tasks,
 * and the server's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` reach it).
 */
const MIRRORED = ['sampling', 'elicitation', 'roots', 'tasks'] as const;

/** Told each time a connection's tools are listed: for a session, or (no session) for everyone. */
export type ToolsListed = (upstream: Upstream, sessionId: string | undefined, tools: Tool[]) => void;

/**
 * One upstream MCP server and its connections. Each agent session gets its own connection, closed
 * when the session ends, so whatever the server sends on a connection (log messages, sampling and
 * elicitation requests, resource updates, tool list changes) belongs to exactly one session, and
 * per-session server state (log level, subscriptions, the tools it offers a client that can
 * sample) stays that session's. Calls without a session (CLI, code tools) share one connection,
 * the one opened at start-up to list the tools. The first session adopts that one when it declares
 * the same client capabilities (none); otherwise an idle start-up connection is closed, so `wrap`
 * and a single agent run one server process either way. A session's connection serves all its calls.
 */
export class Upstream {
  private shared?: Connection;
  private readonly bySession = new Map<string, Connection>();
  private introduction: ServerIntroduction = { capabilities: {} };
  private stopped = false;
  /** Listings in progress, and whether another was asked for meanwhile (a burst of list_changed lists once more, not once each). */
  private readonly listings = new Map<Connection, { again: boolean }>();

  constructor(
    /** The server's config entry (the latest, when a reload kept the server running). */
    public entry: ToolDefinition,
    readonly target: McpTarget,
    /** Resolves `{{backend:KEY}}` in the target's command, args, env, url and headers. */
    private readonly resolve: (template: string) => Promise<string>,
    private readonly sessions: Sessions,
    private readonly listed: ToolsListed,
    /** Whether names it serves (tools, prompts) carry the `<entry>.` prefix. */
    readonly prefixed = true,
    /** Its login (an HTTP server, when the oauth plugin is installed): the transports' `authProvider`. */
    readonly auth?: UpstreamAuthProvider,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  /** Lists the tools on the shared connection and remembers what the server said of itself. */
  async listTools(): Promise<Tool[]> {
    const connection = this.sessionless();
    const tools = await listAll(connection);
    this.introduction = await connection.introduction();
    return tools;
  }

  /** What the server declared when it was listed at start-up. */
  capabilities(): Record<string, unknown> {
    return this.introduction.capabilities;
  }

  /** Its server info and instructions, as it gave them at start-up. */
  introduced(): ServerIntroduction {
    return this.introduction;
  }

  /**
   * A session began. A client that can sample, elicit or list roots gets its own connection at once
   * and what the server lists on it becomes that session's tools (servers offer more to such clients);
   * one that declares none sees the shared list until it calls.
   */
  async openSession(sessionId: string, capabilities: Readonly<Record<string, unknown>>): Promise<void> {
    if (Object.keys(mirror(capabilities)).length === 0) return;
    const connection = this.forSession(sessionId, capabilities);
    this.listed(this, sessionId, await listAll(connection));
  }

  /** Calls a tool on the caller's session connection; its progress reaches the agent under the agent's own token. */
  async call(
    remote: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; client?: ClientLink; asTask?: boolean },
  ): Promise<UpstreamResult> {
    const { client } = options;
    const connection = client ? this.forSession(client.sessionId, client.capabilities) : this.sessionless();
    const end = connection.route.begin(client);
    try {
      const params = { name: remote, arguments: args };
      const request = {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        onprogress: this.progressRelay(client),
        ontask: this.taskRelay(client),
      };
      return (await (options.asTask
        ? connection.callAsTask(params, request)
        : connection.request('tools/call', params, request))) as UpstreamResult;
    } finally {
      end();
    }
  }

  /** Sends one request for a session (resources, prompts, completions, log level) and returns the server's result as it came. */
  async forward(
    method: string,
    params: Record<string, unknown>,
    sessionId: string,
    call?: ClientLink,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const connection = this.forSession(sessionId, call?.capabilities ?? {});
    const end = connection.route.begin(call);
    try {
      return await connection.request(method, params, { signal, onprogress: this.progressRelay(call) });
    } finally {
      end();
    }
  }

  /** Passes a client notification on to the session's connection, if it has one (a new one starts from the present state anyway). */
  async notifySession(sessionId: string, method: string, params: Record<string, unknown>): Promise<void> {
    await this.bySession
      .get(sessionId)
      ?.notify(method, params)
      .catch(() => undefined);
  }

  async closeSession(sessionId: string): Promise<void> {
    const connection = this.bySession.get(sessionId);
    this.bySession.delete(sessionId);
    await connection?.close();
  }

  /** Open connections: the shared one and one per session (diagnostics and tests). */
  connectionCount(): number {
    return this.bySession.size + (this.shared ? 1 : 0);
  }

  /** Process id of the shared connection's stdio server, if running. */
  async pid(): Promise<number | undefined> {
    return this.shared?.pid();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.bySession.values(), ...(this.shared ? [this.shared] : [])];
    this.bySession.clear();
    this.shared = undefined;
    await Promise.all(all.map((connection) => connection.close()));
  }

  private sessionless(): Connection {
    this.ensureRunning();
    this.shared ??= this.open(undefined, {});
    return this.shared;
  }

  private forSession(sessionId: string, fromCall: Readonly<Record<string, unknown>>): Connection {
    this.ensureRunning();
    const existing = this.bySession.get(sessionId);
    if (existing) return existing;
    const capabilities = mirror(this.sessions.get(sessionId)?.capabilities ?? fromCall);
    const shared = this.shared;
    let connection: Connection;
    if (shared?.idle && sameJson(shared.capabilities, capabilities)) {
      connection = shared;
      connection.route.sessionId = sessionId;
      this.shared = undefined;
    } else {
      if (shared?.idle) {
        this.shared = undefined;
        void shared.close().catch(() => undefined);
      }
      connection = this.open(sessionId, capabilities);
    }
    this.bySession.set(sessionId, connection);
    const level = this.sessions.level(sessionId);
    // Queued before anything else the session sends on this connection.
    if (level !== undefined && this.capabilities().logging)
      void connection.request('logging/setLevel', { level }).catch(() => undefined);
    return connection;
  }

  private ensureRunning(): void {
    if (this.stopped) throw new UpstreamClosedError(`upstream MCP server "${this.name}" has been stopped`);
  }

  private open(sessionId: string | undefined, capabilities: Record<string, unknown>): Connection {
    const events = { toolsChanged: (connection: Connection) => this.relist(connection) };
    return new Connection(
      this.name,
      this.target,
      this.resolve,
      capabilities,
      new Route(this.sessions, this.entry, sessionId),
      events,
      this.auth,
    );
  }

  /** The server said its tools changed on this connection: list them again for whoever the connection serves now. */
  private relist(connection: Connection): void {
    const running = this.listings.get(connection);
    if (running) return void (running.again = true);
    const state = { again: false };
    this.listings.set(connection, state);
    void (async () => {
      do {
        state.again = false;
        this.listed(this, connection.route.sessionId, await listAll(connection));
      } while (state.again && !this.stopped);
    })()
      .catch((error: unknown) =>
        writeStderrLine(
          'factorly: ',
          `could not list the tools of upstream MCP server "${this.name}" again: ${(error as Error).message}`,
        ),
      )
      .finally(() => this.listings.delete(connection));
  }

  /**
   * Tells the agent's link the server's own task, for the task the agent runs the call as (the
   * interface keeps the server's ttl, pollInterval, status and statusMessage on it), scrubbed.
   */
  private taskRelay(client: ClientLink | undefined): ((task: Record<string, unknown>) => void) | undefined {
    if (!client) return undefined;
    return (task) =>
      void this.sessions.scrub
        .value(task, this.entry)
        .then((clean) => client.notify('notifications/tasks/status', clean))
        .catch(() => undefined);
  }

  /** Relays upstream progress to the agent under the token the agent attached to its request (none: no relay). */
  private progressRelay(client: ClientLink | undefined): ((progress: Record<string, unknown>) => void) | undefined {
    if (client?.progressToken === undefined) return undefined;
    const progressToken = client.progressToken;
    return (progress) =>
      void this.sessions.scrub
        .value(progress, this.entry)
        .then((clean) => client.notify('notifications/progress', { ...clean, progressToken }))
        .catch(() => undefined);
  }
}

/** Every page of a connection's tools/list. */
async function listAll(connection: Connection): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await connection.request('tools/list', cursor === undefined ? undefined : { cursor });
    tools.push(...((page.tools ?? []) as Tool[]));
    cursor = page.nextCursor as string | undefined;
  } while (cursor);
  return tools;
}

function mirror(capabilities: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    MIRRORED.filter((key) => capabilities[key] !== undefined).map((key) => [key, capabilities[key]]),
  );
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
