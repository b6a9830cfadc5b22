// The public API of the MCP interface plugin (`@factorly/plugin-interface-mcp/api`): the pass-through
// contract an upstream provider implements, and the token it is found under. Types and constants only.
import type { ClientLink, KeyedRegistry, Token } from 'factorly';

/**
 * A downstream MCP session as an upstream pass-through sees it: who it is, what its client can do,
 * and how to reach it outside any one call (resource updates, list changes, log messages and
 * requests an upstream sends between calls).
 */
export interface McpSessionLink extends Omit<ClientLink, 'progressToken'> {
  readonly agentId?: string;
}

/** What upstream servers offer besides tools, for factorly's MCP server to declare (the MCP capability shapes). */
export interface UpstreamCapabilities {
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: Record<string, never>;
  logging?: Record<string, never>;
  /** Task-augmented tool calls (MCP 2025-11-25), when an upstream takes them. */
  tasks?: {
    list?: Record<string, never>;
    cancel?: Record<string, never>;
    requests?: { tools?: { call?: Record<string, never> } };
  };
}

/** What an upstream server said of itself when factorly connected at start-up. */
export interface UpstreamIntroduction {
  /** The server's config entry name. */
  server: string;
  /** Its `serverInfo` (name, version, title, icons, website). */
  info?: Record<string, unknown>;
  instructions?: string;
}

/** The client requests a pass-through forwards to upstream servers. */
export const FORWARDED_METHODS = [
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
] as const;

export type ForwardedMethod = (typeof FORWARDED_METHODS)[number];

/** Why a forwarded request failed, as the upstream said it (JSON-RPC `code`, `message`, `data`). */
export interface ForwardedError extends Error {
  code: number;
  data?: unknown;
}

/**
 * Upstream MCP servers seen beyond their tools: their resources, resource templates, subscriptions,
 * prompts, completions and log level, forwarded for one downstream session at a time. A provider of
 * upstream servers (provider-mcp) implements it; an MCP interface consumes it, so neither imports
 * the other. Every forwarded request is recorded in the event log (`mcp.forwarded`).
 */
export interface McpPassthrough {
  readonly name: string;
  /** Union of what the connected upstreams declared, known once tools are collected. */
  capabilities(): UpstreamCapabilities;
  /** Each upstream's server info and instructions, in config order. */
  introductions(): UpstreamIntroduction[];
  /**
   * A downstream session began: upstream connections made for it mirror its capabilities. Resolves
   * once the tools the upstreams list to such a client are the session's (see `ToolCatalog`).
   */
  openSession(session: McpSessionLink): Promise<void>;
  /**
   * The session ended (the interface calls this for every session it opened, once): its upstream
   * connections close and the tools they listed for it are dropped from its catalogue.
   */
  closeSession(sessionId: string): Promise<void>;
  /** A notification from the session's client that upstreams must hear too (`notifications/roots/list_changed`). */
  clientNotified(sessionId: string, method: string, params: Record<string, unknown>): Promise<void>;
  /**
   * Forwards one request of a session to the upstream that owns its target (a URI, a prompt name)
   * and resolves to that upstream's result unchanged; rejects with a `ForwardedError` carrying the
   * upstream's own error. `call` is the request's own channel (notifications go on its stream).
   */
  forward(
    method: ForwardedMethod,
    params: Record<string, unknown>,
    context: { sessionId: string; call?: ClientLink; signal?: AbortSignal },
  ): Promise<Record<string, unknown>>;
}

/**
 * The extension point this plugin provides: pass-throughs by provider name (`mcp` for provider-mcp).
 * A provider of upstream servers adds its own in init (an optional dependency: without this plugin
 * there is no MCP interface to serve them).
 */
export const McpTokens = {
  Passthroughs: Symbol.for('factorly:interface-mcp.passthroughs') as Token<KeyedRegistry<McpPassthrough>>,
} as const;
