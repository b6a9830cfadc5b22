import { JsonRpcError } from '@factorly/error-kit';
import type { McpSessionLink } from '@factorly/plugin-interface-mcp/api';
import type { ClientLink, ToolDefinition } from 'factorly';
import { forwardedError } from './forwarded-error.js';
import type { Sessions } from './sessions.js';

/** Notifications that concern the session as a whole, not one call. */
const SESSION_NOTIFICATIONS = new Set([
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
]);

/**
 * Where what an upstream connection sends on its own goes: to the agent session the connection was
 * made for (`sessionId`), on the stream of that session's call in flight when there is one.
 *
 * A server's log messages and requests carry no reference to the call that caused them, so with
 * several calls in flight on one connection they go to the latest one's stream (always the right
 * session, which is what routing must guarantee). Progress needs no guess: each call has its own
 * progress token, mapped back to the agent's.
 */
export class Route {
  private readonly calls: ClientLink[] = [];

  constructor(
    private readonly sessions: Sessions,
    /** The server's config entry (what its secrets are scrubbed under). */
    private readonly entry: ToolDefinition,
    /** The agent session this connection serves; none for calls from the CLI and code tools. */
    public sessionId?: string,
  ) {}

  private session(): McpSessionLink | undefined {
    return this.sessionId === undefined ? undefined : this.sessions.get(this.sessionId);
  }

  /** Tracks a call in flight on this connection; the returned function ends it. */
  begin(link: ClientLink | undefined): () => void {
    if (!link) return () => undefined;
    this.calls.push(link);
    return () => {
      const index = this.calls.lastIndexOf(link);
      if (index >= 0) this.calls.splice(index, 1);
    };
  }

  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    let target: { notify: ClientLink['notify'] } | undefined;
    if (method === 'notifications/message') target = this.calls.at(-1) ?? this.session();
    else if (SESSION_NOTIFICATIONS.has(method)) target = this.session();
    // Anything else (tools/list_changed among them) is the upstream's business with factorly, not the agent's.
    if (!target) return;
    await target.notify(method, await this.sessions.scrub.value(params, this.entry)).catch(() => undefined);
  }

  /** A server-to-client request (sampling, elicitation, roots), answered by the agent, recorded either way. */
  async request(
    server: string,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const target = this.calls.at(-1) ?? this.session();
    const started = performance.now();
    const base = {
      direction: 'to_client' as const,
      method,
      server,
      sessionId: this.sessionId,
      agentId: this.session()?.agentId,
    };
    if (!target) {
      const error = `no agent session to send ${method} to: the call came from the CLI or a code tool`;
      await this.sessions.record({ ...base, status: 'error', error, durationMs: 0 });
      throw JsonRpcError.of('METHOD_NOT_FOUND', error);
    }
    try {
      const result = await target.request(method, await this.sessions.scrub.value(params, this.entry), signal);
      await this.sessions.record({ ...base, status: 'success', durationMs: Math.round(performance.now() - started) });
      return result;
    } catch (error) {
      const passed = forwardedError(error);
      passed.message = await this.sessions.scrub.text(passed.message, this.entry);
      await this.sessions.record({
        ...base,
        status: 'error',
        error: passed.message,
        durationMs: Math.round(performance.now() - started),
      });
      throw passed;
    }
  }
}
