import type { CallStatus, Interface, Params } from '../../events/catalog.js';
import type { ToolDefinition, ToolResult } from './tool.js';
import type { CatalogChange } from '../config-watch.js';

export interface CallRequest {
  tool: string;
  params: Params;
  iface: Interface;
  agentId?: string;
  sessionId?: string;
  /**
   * For an inner call: the calling call's `ToolCall.context`, as the kernel handed it over. The inner
   * call joins that call's tree (its secret scope, deadline and budgets); a link the kernel did not
   * issue is refused. Without it the call is the root of a new tree.
   */
  parent?: CallTreeLink;
  /** The call this one re-runs (`factorly logs replay`). */
  replayedFrom?: string;
  /** The caller's live channel, when its interface has one (an MCP session). */
  client?: ClientLink;
  /** Aborts when the caller gives up (an MCP client cancels the request): the provider stops the work. */
  signal?: AbortSignal;
}

/**
 * A call's place in its call tree, issued by the kernel (`ToolCall.context`). Opaque: a provider
 * passes it on as `CallRequest.parent` for the calls it makes, and nothing else can make one.
 */
export interface CallTreeLink {
  readonly callId: string;
  readonly rootId: string;
  /** Aborts when this call stops: its own deadline, its caller's cancellation, or its tree stopping. */
  readonly signal: AbortSignal;
}

/**
 * The calling client's side of an interactive interface (an MCP session), handed to the provider
 * so an upstream's progress, log messages and requests (sampling, elicitation) reach the agent
 * that made the call, on that call's own stream, and the answers come back unchanged.
 */
export interface ClientLink {
  /** Which session this is (also `CallRequest.sessionId`). */
  readonly sessionId: string;
  /** The progress token the client attached to this call, if any. */
  readonly progressToken?: string | number;
  /** What the client declared it can do (MCP client capabilities: sampling, elicitation, roots). */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** Sends a notification (`notifications/progress`, `notifications/message`) related to this call. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /**
   * Sends a request to the client (`sampling/createMessage`, `elicitation/create`) and returns its
   * result as is. `timeoutMs` overrides the interface's default request timeout (a person may take long).
   */
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal, timeoutMs?: number): Promise<Record<string, unknown>>;
}

export interface CallOutcome extends ToolResult {
  callId: string;
  status: CallStatus;
  durationMs: number;
  /** For a blocked call: the rule that refused it (`max-calls`, `deny`, …) or the stage (`unknown_tool`, `invalid`). */
  blockedBy?: string;
}

/**
 * The way into the call pipeline for plugins: interfaces (MCP, web UI) and code tools whose
 * scripts call other tools. Usable once the kernel is ready; calling it earlier throws.
 */
export interface CallGateway {
  call(request: CallRequest): Promise<CallOutcome>;
  /**
   * Every registered tool, hidden ones included, in catalogue order; as one session sees them when
   * `sessionId` is given (see `ToolCatalog.setSessionTools`).
   */
  tools(sessionId?: string): ToolDefinition[];
  /**
   * Calls `listener` after the catalogue changed: the config changed on disk and was reloaded, or a
   * provider listed an entry's tools again (for every session, or for the one `sessionId` names);
   * `tools()` then returns the new tools. With the error when the edited config does not load (the
   * old tools stay). Returns the unsubscribe function; watching runs only while someone listens.
   */
  watchTools(listener: (change: CatalogChange) => void): () => void;
}

/**
 * How a provider changes the catalogue while serving (an upstream MCP server said its tool list
 * changed, or lists more tools to a client that can sample than to one that cannot). Tools are
 * given as the provider's `expand` gives them; the entry's rules cover them as at boot. Each method
 * returns the names it left out because another tool has them. Watchers of `watchTools` are told.
 */
export interface ToolCatalog {
  /** The tools `entry` stands for now, for everyone. */
  replaceEntry(entry: string, tools: ToolDefinition[]): string[];
  /** The tools `entry` stands for in one session, instead of the shared ones. */
  setSessionTools(sessionId: string, entry: string, tools: ToolDefinition[]): string[];
  /** The session ended: forget what it saw. */
  dropSession(sessionId: string): void;
}

export type { CatalogChange } from '../config-watch.js';
