import type { ClientLink } from 'factorly';
import type { McpSessionLink } from './api.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** The request handler's view of one request (its own stream for notifications and requests). */
export type Extra = RequestHandlerExtra<never, never>;

/** Envelope-only: an answer from the agent keeps every field. */
const LooseResult = z.looseObject({});

/** An upstream's own task, told by the provider for a call run as a task: the task's business, not the agent's. */
const TASK_STATUS = 'notifications/tasks/status';

const capabilitiesOf = (server: Server): Record<string, unknown> =>
  (server.getClientCapabilities() ?? {}) as Record<string, unknown>;

/** One request's own channel: what is sent through it travels on that request's stream. */
export function requestLink(
  server: Server,
  extra: Extra,
  sessionId: string,
  progressToken = extra._meta?.progressToken,
): ClientLink {
  return {
    sessionId,
    progressToken,
    capabilities: capabilitiesOf(server),
    notify: async (method, params) => {
      // The agent made no task of this call: an upstream's task id would mean nothing to it.
      if (method !== TASK_STATUS) await extra.sendNotification({ method, params } as never);
    },
    request: (method, params, signal, timeoutMs) =>
      extra.sendRequest({ method, params } as never, LooseResult as never, {
        signal: signal ?? extra.signal,
        ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      }) as Promise<Record<string, unknown>>,
  };
}

/** The session as a whole: notifications and requests that belong to no one request (resource updates, list changes). */
export function sessionLink(server: Server, sessionId: string, agentId?: string): McpSessionLink {
  return {
    sessionId,
    agentId,
    capabilities: capabilitiesOf(server),
    notify: (method, params) => server.notification({ method, params } as ServerNotification),
    request: (method, params, signal, timeoutMs) =>
      server.request({ method, params } as ServerRequest, LooseResult, { signal, timeout: timeoutMs }) as Promise<
        Record<string, unknown>
      >,
  };
}

/** Runs a request to the client while the task waits for its answer (the task is `input_required` meanwhile). */
export type Asking = <T>(request: () => Promise<T>) => Promise<T>;

/** Takes on the upstream's own task (its ttl, pollInterval, status, statusMessage) as the agent's task's. */
export type Mirror = (upstreamTask: Record<string, unknown>) => Promise<void>;

/**
 * A task's channel (a task-augmented call answers at once, then runs): what the call sends is tied
 * to the task, so the client gets it with the task's result stream (`tasks/result`); while a request
 * waits for the client's answer the task says it needs input, which is what makes the client ask
 * for that stream. An upstream's own task behind the call is mirrored onto this one.
 */
export function taskLink(
  server: Server,
  sessionId: string,
  task: { taskId: string; asking: Asking; mirror: Mirror },
  progressToken?: string | number,
): ClientLink {
  const { taskId, asking, mirror } = task;
  const relatedTask = { taskId };
  return {
    sessionId,
    progressToken,
    capabilities: capabilitiesOf(server),
    notify: (method, params) =>
      method === TASK_STATUS
        ? mirror(params)
        : server.notification({ method, params } as ServerNotification, { relatedTask }),
    request: (method, params, signal, timeoutMs) =>
      asking(
        () =>
          server.request({ method, params } as ServerRequest, LooseResult, {
            signal,
            relatedTask,
            ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
          }) as Promise<Record<string, unknown>>,
      ),
  };
}
