import type { ClientLink, ForwardedMethod, McpPassthrough, McpSessionLink, UpstreamCapabilities } from 'factorly';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

type Extra = RequestHandlerExtra<never, never>;
type Params = Record<string, unknown>;

/** Envelope-only schemas: what passes between the agent and an upstream keeps every field. */
const LooseResult = z.looseObject({});
const looseRequest = (method: string) => z.looseObject({ method: z.literal(method), params: z.looseObject({}).optional() });
const looseNotification = looseRequest;

/** Which capability each forwarded method needs factorly's server to declare. */
const NEEDS: Record<ForwardedMethod, (capabilities: UpstreamCapabilities) => boolean> = {
  'resources/list': (c) => c.resources !== undefined,
  'resources/templates/list': (c) => c.resources !== undefined,
  'resources/read': (c) => c.resources !== undefined,
  'resources/subscribe': (c) => c.resources?.subscribe === true,
  'resources/unsubscribe': (c) => c.resources?.subscribe === true,
  'prompts/list': (c) => c.prompts !== undefined,
  'prompts/get': (c) => c.prompts !== undefined,
  'completion/complete': (c) => c.completions !== undefined,
  'logging/setLevel': (c) => c.logging !== undefined,
};

/**
 * Makes `server` (one agent session) serve what upstream MCP servers offer besides tools: declares
 * exactly the capabilities the upstreams declared (the union: an agent sees resources, prompts,
 * completions or logging only when some upstream has them), and installs a handler for each
 * forwarded request those allow, which hands it to the pass-through with the request's own channel
 * (upstream progress and log messages travel on that request's stream). Call before
 * `server.connect`; call the returned function once the client has initialized (its capabilities
 * are known then). The session's upstream connections close on `session.closed`.
 */
export function attachPassthrough(server: Server, passthrough: McpPassthrough | undefined, sessionId: string): () => void {
  if (!passthrough) return () => undefined;
  const capabilities = passthrough.capabilities();
  server.registerCapabilities(capabilities);
  for (const method of Object.keys(NEEDS) as ForwardedMethod[]) {
    if (!NEEDS[method](capabilities)) continue;
    server.setRequestHandler(looseRequest(method), async (request, extra) => {
      const { params, progressToken } = withoutProgressToken((request.params ?? {}) as Params);
      const call = clientLinkOf(server, extra as Extra, sessionId, progressToken);
      return passthrough.forward(method, params, { sessionId, call, signal: extra.signal });
    });
  }
  server.setNotificationHandler(looseNotification('notifications/roots/list_changed'), (notification) =>
    passthrough.clientNotified(sessionId, notification.method, (notification.params ?? {}) as Params));
  // The session id is the agent id on every event of an MCP session.
  return () => passthrough.openSession(sessionLinkOf(server, sessionId, sessionId));
}

/** The session as a whole: notifications and requests that belong to no one request (resource updates, list changes). */
function sessionLinkOf(server: Server, sessionId: string, agentId?: string): McpSessionLink {
  return {
    sessionId,
    agentId,
    capabilities: (server.getClientCapabilities() ?? {}) as Record<string, unknown>,
    notify: (method, params) => server.notification({ method, params } as ServerNotification),
    request: (method, params, signal, timeoutMs) => server.request({ method, params } as ServerRequest, LooseResult, { signal, timeout: timeoutMs }) as Promise<Record<string, unknown>>,
  };
}

/** One request's own channel: what is sent through it travels on that request's stream. */
function clientLinkOf(server: Server, extra: Extra, sessionId: string, progressToken = extra._meta?.progressToken): ClientLink {
  return {
    sessionId,
    progressToken,
    capabilities: (server.getClientCapabilities() ?? {}) as Record<string, unknown>,
    notify: (method, params) => extra.sendNotification({ method, params } as never),
    request: (method, params, signal, timeoutMs) => extra.sendRequest({ method, params } as never, LooseResult as never, { signal: signal ?? extra.signal, timeout: timeoutMs }) as Promise<Record<string, unknown>>,
  };
}

/** The agent's progress token belongs to this hop: the upstream gets its own, mapped back on the way. */
function withoutProgressToken(params: Params): { params: Params; progressToken?: string | number } {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (meta?.progressToken === undefined) return { params };
  const { progressToken, ...rest } = meta;
  const { _meta: _dropped, ...others } = params;
  return { params: Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others, progressToken: progressToken as string | number };
}
