import type { CallStatus, CallOrigin, Params } from '../events/catalog.js';
import type { CallTreeLink, ClientLink, ToolDefinition, ToolResult } from './tool.js';
import type { CatalogChange } from '../config/config-watch.js';

export interface CallRequest {
  tool: string;
  params: Params;
  iface: CallOrigin;
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
   * `sessionId` is given (see `ToolCatalog.setSessionTools`). Tools a `CatalogFilter` holds back (a
   * pinned tool whose definition changed) are left out unless `options.held`: a call still resolves
   * them, and the rules refuse it.
   */
  tools(sessionId?: string, options?: { held?: boolean }): ToolDefinition[];
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
 * returns the names it left out because another tool has them or the name is refused (see
 * tool-name.ts). Watchers of `watchTools` are told.
 */
export interface ToolCatalog {
  /** The tools `entry` stands for now, for everyone. */
  replaceEntry(entry: string, tools: ToolDefinition[]): string[];
  /** The tools `entry` stands for in one session, instead of the shared ones. */
  setSessionTools(sessionId: string, entry: string, tools: ToolDefinition[]): string[];
  /** The session ended: forget what it saw. */
  dropSession(sessionId: string): void;
  /** What a listing shows changed though no tool did (a filter holds or releases one): watchers are told. */
  changed(sessionId?: string): void;
}

/**
 * Sees the catalogue as it is listed and as calls resolve it, and may hold tools back from listings
 * (the pins plugin holds a tool whose definition changed since it was pinned). A held tool still
 * resolves when called: the call is recorded and the shadow rules decide on it.
 */
export interface CatalogFilter {
  readonly name: string;
  readonly order?: number;
  /**
   * The tools a listing shows, of those the catalogue holds for `sessionId` (or for everyone, without
   * one). Synchronous and called at every listing; a throw fails the listing.
   */
  listed(tools: readonly ToolDefinition[], sessionId?: string): ToolDefinition[];
  /**
   * A call resolved `tool`, as `sessionId` sees it: awaited before the call's first event, so what the
   * filter records first (a pin, a hold) comes before the call's decisions. A throw refuses the call.
   */
  resolved?(tool: ToolDefinition, sessionId?: string): Promise<void>;
}

/** The tools a listing shows after every filter, in order (all of them, held ones too, with `options.held`). */
export function listedThrough(
  filters: readonly CatalogFilter[],
  tools: ToolDefinition[],
  sessionId?: string,
  options?: { held?: boolean },
): ToolDefinition[] {
  if (options?.held) return tools;
  return filters.reduce((shown, filter) => filter.listed(shown, sessionId), tools);
}

export type { CatalogChange } from '../config/config-watch.js';
// The links a call carries belong to ToolCall (tool.ts); the gateway's callers name them from here too.
export type { CallTreeLink, ClientLink } from './tool.js';
