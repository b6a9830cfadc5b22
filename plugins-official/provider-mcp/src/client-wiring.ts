import { rethrowAsJsonRpc } from '@factorly/error-kit';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CLIENT_REQUESTS } from './capabilities.js';
import type { Route } from './route.js';

type LooseSchemas = typeof import('./loose-schemas.js');

/** Where a connection's client hands what its server sends on its own. */
export interface ClientHandlers {
  /** The client capabilities the connection declared: only their requests are answered. */
  capabilities: Readonly<Record<string, unknown>>;
  server: string;
  route: Route;
  progress(token: string, progress: Record<string, unknown>): void;
  taskStatus(task: Record<string, unknown>): void;
  toolsChanged(): void;
}

/**
 * Wires a new client to its connection: progress and task status by the connection (the SDK drops
 * a progress listener as soon as the response is read, and over stdio a server's last progress and
 * its response often arrive in one chunk), list changes, every other notification to the route, and
 * the requests of declared capabilities to the agent behind the route.
 */
export function wireClient(client: Client, loose: LooseSchemas, handlers: ClientHandlers): void {
  for (const [method, capability] of Object.entries(CLIENT_REQUESTS)) {
    if (handlers.capabilities[capability] === undefined) continue;
    client.setRequestHandler(
      loose.serverRequestSchema(method),
      (request, extra) =>
        handlers.route
          .request(handlers.server, method, (request.params ?? {}) as Record<string, unknown>, extra.signal)
          .catch(rethrowAsJsonRpc) as never,
    );
  }
  client.setNotificationHandler(loose.serverNotificationSchema('notifications/progress'), async (notification) => {
    const { progressToken, ...progress } = (notification.params ?? {}) as Record<string, unknown>;
    handlers.progress(String(progressToken), progress);
  });
  client.setNotificationHandler(loose.serverNotificationSchema('notifications/tasks/status'), async (notification) =>
    handlers.taskStatus((notification.params ?? {}) as Record<string, unknown>),
  );
  client.setNotificationHandler(loose.serverNotificationSchema('notifications/tools/list_changed'), async () =>
    handlers.toolsChanged(),
  );
  client.fallbackNotificationHandler = async (notification) =>
    handlers.route.notify(notification.method, (notification.params ?? {}) as Record<string, unknown>);
}

/** The oauth plugin's transport said the server refused its token and a new one is stored: send again, once. */
export function tokenRenewed(error: unknown): boolean {
  return (error as { data?: Record<string, unknown> } | undefined)?.data?.tokenRenewed === true;
}
