import { FactorlyError, JsonRpcError, rethrowAsJsonRpc } from '@factorly/error-kit';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallGateway, CallOutcome, ClientLink, Params } from 'factorly';
import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type { McpPassthrough } from './api.js';
import { toMcpResult, type McpCallResult } from './call-result.js';
import { readCallParams, type CallParams } from './call-params.js';
import type { QuietView } from './answer-mode.js';
import { availableOver, exposedTools, type ExposureMode } from './exposure.js';
import type { Principal } from './principal.js';
import { requestLink, sessionLink, taskLink, type Extra } from './links.js';
import { attachPassthrough } from './passthrough.js';
import type { Introduction, Sdk } from './sdk.js';
import type { SessionRegistry } from './session-registry.js';
import { TaskCalls } from './task-calls.js';
import { toolEntry, type McpToolEntry } from './tool-entry.js';

export type { McpToolEntry } from './tool-entry.js';

/** What every session of one `serve` shares. */
export interface SessionContext {
  gateway: CallGateway;
  sessions: SessionRegistry;
  mode: ExposureMode;
  /** `--code-mode`: the agent sees `execute`/`search`/`describe` instead of the catalogue. */
  codeMode?: CodeModeTools;
  /** stdio or http, as recorded on `session.opened`. */
  transport: string;
  /** Upstream MCP servers' resources, prompts, completions and log level, served next to the tools. */
  passthrough?: McpPassthrough;
  /** What each session's server says of itself at initialize. */
  introduction: Introduction;
  /** The shadow rules' policies, when the shadow plugin is installed: denied tools are not listed, governed ones marked. */
  policies?: ShadowPolicies;
}

/** The tools code mode shows instead of the catalogue, and how it answers a call to one. */
export interface CodeModeTools {
  /** The tools shown, the catalogue in `execute`'s description as `agentId` may call it. */
  list(agentId?: string): McpToolEntry[];
  call(
    name: string,
    args: Params,
    session: McpSession,
    client: ClientLink,
    signal: AbortSignal,
  ): Promise<McpCallResult>;
}

/**
 * One MCP connection: an SDK `Server` whose `tools/list` shows the catalogue as this session's agent
 * sees it (an upstream lists more tools to a client that can sample; the agent's rules leave out
 * what it may not call) and whose `tools/call` goes through the call gateway as that agent, carrying a
 * `ClientLink` so upstream progress, logs and requests reach this client on the call's own stream.
 * A task-augmented call is answered with a task and runs on (see TaskCalls).
 */
export class McpSession implements QuietView {
  readonly server: Server;
  private readonly tasks = new TaskCalls();
  /** Settles once the upstreams have listed this session's own tools (see McpPassthrough.openSession). */
  private opened: Promise<void> = Promise.resolve();
  /** The pass-through opened this session (at initialize), so it is closed through it when the session ends. */
  private passedThrough = false;
  /** Settles when the connection closes (the client went away or the server closed it). */
  readonly closed: Promise<void>;

  constructor(
    readonly id: string,
    private readonly context: SessionContext,
    sdk: Sdk,
    /** Who the session's bearer token says it is (HTTP); none over stdio or without a token. */
    readonly principal?: Principal,
  ) {
    const takesTasks = context.introduction.capabilities.tasks !== undefined;
    this.server = sdk.newServer(context.introduction, takesTasks ? this.tasks.watch(sdk.newTaskStore()) : undefined);
    const { server } = this;
    // Every failure is answered as the JSON-RPC error its factorly code stands for (see @factorly/error-kit).
    server.setRequestHandler(sdk.schemas.ListToolsRequestSchema, async () =>
      this.tools().then((tools) => ({ tools }), rethrowAsJsonRpc),
    );
    // tools/call is answered here, not through the SDK's handler, which rewrites results to its own schema (dropping fields it does not know).
    server.fallbackRequestHandler = (request, extra) =>
      this.onRequest(request as { method: string; params?: unknown }, extra as unknown as Extra);
    attachPassthrough(server, context.passthrough, id);
    server.oninitialized = () => {
      const link = sessionLink(server, id, this.agentId);
      this.passedThrough = context.passthrough !== undefined;
      this.opened = context.passthrough?.openSession(link) ?? Promise.resolve();
      void this.context.sessions.opened(this);
    };
    this.closed = new Promise((resolve) => {
      server.onclose = () => {
        this.tasks.abortAll();
        resolve();
      };
    });
  }

  /**
   * The connection is over: `session.closed` is recorded, and the session's upstream connections
   * close through the pass-through contract it opened them with (a failure there is reported, and
   * the session counts as closed all the same). Idempotent.
   */
  async end(): Promise<void> {
    await this.context.sessions.closed(this);
    if (!this.passedThrough) return;
    this.passedThrough = false;
    try {
      await this.context.passthrough!.closeSession(this.id);
    } catch (error) {
      this.context.sessions.warn(
        `the upstream connections of session ${this.id} did not close cleanly: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * The agent its calls are recorded under: the principal its token names (a named token's name, an
   * OAuth token's subject), else the session itself. The client's own name is a label, never this.
   */
  get agentId(): string {
    return this.principal?.agentId ?? this.id;
  }

  /** The client's name and version as it introduced itself: a label shown beside the agent, never an identity. */
  get client(): { name: string; version?: string } | undefined {
    const info = this.server.getClientVersion();
    return info ? { name: info.name, version: info.version } : undefined;
  }

  get transport(): string {
    return this.context.transport;
  }

  canElicit(): boolean {
    return this.server.getClientCapabilities()?.elicitation !== undefined;
  }

  get codeMode(): boolean {
    return this.context.codeMode !== undefined;
  }

  /** The type of the tool of that name as this session may call it (held ones included), if any. */
  toolType(name: string): string | undefined {
    return this.context.gateway.tools(this.id, { held: true }).find((candidate) => candidate.name === name)?.type;
  }

  /** Runs one call through the gateway as this session's agent. */
  callGateway(tool: string, params: Params, client?: ClientLink, signal?: AbortSignal): Promise<CallOutcome> {
    return this.context.gateway.call({
      tool,
      params,
      iface: 'mcp',
      sessionId: this.id,
      agentId: this.agentId,
      client,
      signal,
    });
  }

  private async tools(): Promise<McpToolEntry[]> {
    if (this.context.codeMode) return this.context.codeMode.list(this.agentId);
    await this.opened;
    const { policies } = this.context;
    return exposedTools(this.context.gateway.tools(this.id), this.context.mode, policies, this.agentId).map((tool) =>
      toolEntry(tool, policies),
    );
  }

  /**
   * Not async: the tracked call's promise is what the SDK waits on, so its answer is sent before a
   * drain that waits on the same promise goes on to close the transport.
   */
  private onRequest(request: { method: string; params?: unknown }, extra: Extra): Promise<Record<string, unknown>> {
    let params: CallParams;
    try {
      if (request.method !== 'tools/call')
        throw new FactorlyError('METHOD_NOT_FOUND', `Method not found: factorly does not serve "${request.method}"`);
      params = readCallParams(request.params);
    } catch (error) {
      return Promise.reject(JsonRpcError.from(error));
    }
    const { name, args, task } = params;
    const call = (client: ClientLink, signal: AbortSignal): Promise<McpCallResult> =>
      this.context.sessions.track(this.callTool(name, args, client, signal).catch(rethrowAsJsonRpc));
    const { taskStore } = extra;
    if (task && taskStore) {
      const link = (task: Parameters<typeof taskLink>[2]): ClientLink =>
        taskLink(this.server, this.id, task, extra._meta?.progressToken);
      return this.tasks.start(taskStore, task.ttl, link, call);
    }
    return call(requestLink(this.server, extra, this.id), extra.signal);
  }

  private async callTool(name: string, args: Params, client: ClientLink, signal: AbortSignal): Promise<McpCallResult> {
    await this.opened;
    if (this.context.codeMode) return this.context.codeMode.call(name, args, this, client, signal);
    const tool = this.context.gateway.tools(this.id, { held: true }).find((candidate) => candidate.name === name);
    // A local-only tool (factorly.shell asked for over HTTP) is refused before anything runs.
    if (tool && !availableOver(tool, this.context.mode)) {
      return {
        content: [{ type: 'text', text: `tool "${name}" is not available over this interface` }],
        isError: true,
      };
    }
    const offering: ClientLink = { ...client, offers: (candidate) => availableOver(candidate, this.context.mode) };
    return toMcpResult(await this.callGateway(name, args, offering, signal));
  }
}
