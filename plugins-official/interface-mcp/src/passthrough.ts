import { rethrowAsJsonRpc } from '@factorly/error-kit';
import type { ForwardedMethod, McpPassthrough, UpstreamCapabilities } from './api.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';
import { requestLink, type Extra } from './links.js';

type Params = Record<string, unknown>;

/** Envelope-only schemas: what passes between the agent and an upstream keeps every field. */
const looseRequest = (method: string) =>
  z.looseObject({ method: z.literal(method), params: z.looseObject({}).optional() });
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
 * Makes `server` (one agent session) serve what upstream MCP servers offer besides tools: a handler
 * for each forwarded request the upstreams' capabilities allow (the server declares exactly those,
 * see the session's introduction), which hands it to the pass-through with the request's own channel
 * (upstream progress and log messages travel on that request's stream). Call before
 * `server.connect`. The session's upstream connections close through `closeSession` (McpSession.end).
 */
export function attachPassthrough(server: Server, passthrough: McpPassthrough | undefined, sessionId: string): void {
  if (!passthrough) return;
  const capabilities = passthrough.capabilities();
  for (const method of Object.keys(NEEDS) as ForwardedMethod[]) {
    if (!NEEDS[method](capabilities)) continue;
    server.setRequestHandler(looseRequest(method), async (request, extra) => {
      const { params, progressToken } = withoutProgressToken((request.params ?? {}) as Params);
      const call = requestLink(server, extra as Extra, sessionId, progressToken);
      return passthrough.forward(method, params, { sessionId, call, signal: extra.signal }).catch(rethrowAsJsonRpc);
    });
  }
  server.setNotificationHandler(looseNotification('notifications/roots/list_changed'), (notification) =>
    passthrough.clientNotified(sessionId, notification.method, (notification.params ?? {}) as Params),
  );
}

/** The agent's progress token belongs to this hop: the upstream gets its own, mapped back on the way. */
function withoutProgressToken(params: Params): { params: Params; progressToken?: string | number } {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (meta?.progressToken === undefined) return { params };
  const { progressToken, ...rest } = meta;
  const { _meta: _dropped, ...others } = params;
  return {
    params: Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others,
    progressToken: progressToken as string | number,
  };
}
