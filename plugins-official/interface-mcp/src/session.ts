import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallGateway, CallOutcome, ClientLink, McpPassthrough, Params } from 'factorly';
import { toMcpResult, type McpCallResult } from './call-result.js';
import { availableOver, exposedTools, type ExposureMode } from './exposure.js';
import { attachPassthrough } from './passthrough.js';
import type { SessionRegistry } from './session-registry.js';
import { inputSchemaOf } from './tool-schema.js';

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
}

/** The tools code mode shows instead of the catalogue, and how it answers a call to one. */
export interface CodeModeTools {
  list(): McpToolEntry[];
  call(name: string, args: Params, session: McpSession, client: ClientLink, signal: AbortSignal): Promise<McpCallResult>;
}

export interface McpToolEntry {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

type Extra = {
  signal: AbortSignal;
  requestId: string | number;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: { method: string; params?: Record<string, unknown> }) => Promise<void>;
  sendRequest: (request: { method: string; params?: Record<string, unknown> }, schema: never, options?: { signal?: AbortSignal; timeout?: number }) => Promise<unknown>;
};

/**
 * One MCP connection: an SDK `Server` whose `tools/list` shows the exposed catalogue with real
 * schemas and whose `tools/call` goes through the call gateway as this session's agent (the
 * session id is the `agentId`), carrying a `ClientLink` so upstream progress, logs and requests
 * reach this client on the call's own stream.
 */
export class McpSession {
  readonly server: Server;

  constructor(
    readonly id: string,
    private readonly context: SessionContext,
    server: Server,
    private readonly schemas: SdkSchemas,
  ) {
    this.server = server;
    server.setRequestHandler(schemas.ListToolsRequestSchema, () => ({ tools: this.tools() }));
    schemas.onToolCall(server, (request, extra) =>
      this.context.sessions.track(this.callTool(request.params.name, (request.params.arguments ?? {}) as Params, extra as unknown as Extra)),
    );
    const passthroughOpened = attachPassthrough(server, context.passthrough, id);
    server.oninitialized = () => {
      passthroughOpened();
      void this.context.sessions.opened(this);
    };
  }

  /** The client's name and version as it introduced itself. */
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

  /** Runs one call through the gateway as this session's agent. */
  callGateway(tool: string, params: Params, client?: ClientLink, signal?: AbortSignal): Promise<CallOutcome> {
    return this.context.gateway.call({ tool, params, iface: 'mcp', sessionId: this.id, agentId: this.id, client, signal });
  }

  private tools(): McpToolEntry[] {
    if (this.context.codeMode) return this.context.codeMode.list();
    return exposedTools(this.context.gateway.tools(), this.context.mode).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchemaOf(tool) as McpToolEntry['inputSchema'],
    }));
  }

  private async callTool(name: string, args: Params, extra: Extra): Promise<McpCallResult> {
    const client = this.linkFor(extra);
    if (this.context.codeMode) return this.context.codeMode.call(name, args, this, client, extra.signal);
    const tool = this.context.gateway.tools().find((candidate) => candidate.name === name);
    // A local-only tool (factorly.shell asked for over HTTP) is refused before anything runs.
    if (tool && !availableOver(tool, this.context.mode)) {
      return { content: [{ type: 'text', text: `tool "${name}" is not available over this interface` }], isError: true };
    }
    return toMcpResult(await this.callGateway(name, args, client, extra.signal));
  }

  private linkFor(extra: Extra): ClientLink {
    return {
      sessionId: this.id,
      progressToken: extra._meta?.progressToken,
      capabilities: (this.server.getClientCapabilities() ?? {}) as Record<string, unknown>,
      notify: (method, params) => extra.sendNotification({ method, params }),
      request: async (method, params, signal, timeoutMs) => {
        const options = { signal: signal ?? extra.signal, ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) };
        return (await extra.sendRequest({ method, params }, this.schemas.ResultSchema as never, options)) as Record<string, unknown>;
      },
    };
  }
}

/** The SDK's request schemas, imported once per `serve` (the SDK is loaded only when serving). */
export interface SdkSchemas {
  ListToolsRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').ListToolsRequestSchema;
  CallToolRequestSchema: typeof import('@modelcontextprotocol/sdk/types.js').CallToolRequestSchema;
  ResultSchema: typeof import('@modelcontextprotocol/sdk/types.js').ResultSchema;
  /** Answers `tools/call` (see `Sdk.onToolCall`). */
  onToolCall(server: Server, handler: (request: { params: { name: string; arguments?: Record<string, unknown> } }, extra: unknown) => unknown): void;
}
