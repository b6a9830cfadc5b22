import { FactorlyError } from '@factorly/error-kit';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
// The SDK is imported when a connection is first opened, not with the plugin: every CLI command
// loads the plugins, and most never talk to an upstream server.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { relayingSignal } from './cancel-reason.js';
import { tokenRenewed, wireClient } from './client-wiring.js';
import { LoginRequiredError, type LoginChallenge } from './login.js';
import type { McpTarget } from './mcp-spec.js';
import type { Route } from './route.js';
import { httpFailure, openTransport, speaksLegacySse, wiresFor, type Wire } from './transports.js';

const CONNECT_TIMEOUT_MS = 30_000;

type LooseSchemas = typeof import('./loose-schemas.js');

interface Live {
  client: Client;
  closed: boolean;
  stderr: () => string;
  pid?: number;
  loose: LooseSchemas;
}

export class UpstreamClosedError extends Error {}

/** What a server says of itself when a connection initializes. */
export interface ServerIntroduction {
  capabilities: Record<string, unknown>;
  /** Its `serverInfo`: name, version, title, icons, website. */
  info?: Record<string, unknown>;
  instructions?: string;
}

function send(
  live: Live,
  method: string,
  params: Record<string, unknown> | undefined,
  options: { signal?: AbortSignal; timeout?: number },
): Promise<Record<string, unknown>> {
  return live.client.request(
    { method, ...(params === undefined ? {} : { params }) } as never,
    live.loose.LooseResult,
    options,
  ) as Promise<Record<string, unknown>>;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onprogress?: (progress: Record<string, unknown>) => void;
  /** For a call run as a task: the server's task as it created it, then each status it announces. */
  ontask?: (task: Record<string, unknown>) => void;
}

/** What a connection reports about its server besides answers. */
export interface ConnectionEvents {
  /** The server said its tool list changed (`notifications/tools/list_changed`). */
  toolsChanged(connection: Connection): void;
}

type Sender = (
  live: Live,
  params: Record<string, unknown> | undefined,
  sdkOptions: { signal?: AbortSignal; timeout?: number },
) => Promise<Record<string, unknown>>;

/**
 * One client connection to an upstream MCP server (one process for a stdio server, one MCP session
 * for an HTTP one), reused by every request routed to it. It declares `capabilities` (those of the
 * agent session it serves, none when it serves calls without a session) and hands what the server
 * sends on its own (log messages, resource updates, sampling and elicitation requests) to its
 * route. When the process dies or the connection drops, the request in flight fails with an
 * `UpstreamClosedError` and the next request opens it again.
 */
export class Connection {
  private live?: Promise<Live>;
  /** Counts openings, so a late close of an old one never forgets a newer one. */
  private generation = 0;
  private stopped = false;
  private inFlight = 0;
  /** Progress listeners by the token this connection put on the request. */
  private readonly progress = new Map<string, (progress: Record<string, unknown>) => void>();
  private nextToken = 0;
  /** Listeners of the server's own tasks (calls run as tasks), by task id. */
  private readonly taskWatchers = new Map<string, (task: Record<string, unknown>) => void>();
  /** The wire the server turned out to speak (a server with no `transport` is probed once). */
  private spoken?: Wire;

  constructor(
    readonly server: string,
    private readonly target: McpTarget,
    private readonly resolve: (template: string) => Promise<string>,
    readonly capabilities: Readonly<Record<string, unknown>>,
    readonly route: Route,
    private readonly events?: ConnectionEvents,
    /** The login's auth provider (an HTTP server the oauth plugin keeps tokens for). */
    private readonly auth?: OAuthClientProvider,
  ) {}

  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** Sends one request and resolves to the server's result as it came (no schema reshapes it). */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.exchange(params, options, (live, withToken, sdkOptions) => send(live, method, withToken, sdkOptions));
  }

  /**
   * Calls a tool as a task (MCP 2025-11-25), for a tool the server runs no other way: the call
   * creates the task, `tasks/result` waits for its end and brings the tool's result; cancelling
   * cancels the task. The progress token stays live until the task ends.
   */
  callAsTask(params: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.exchange(params, options, async (live, withToken, sdkOptions) => {
      const created = await send(live, 'tools/call', { ...withToken, task: {} }, sdkOptions);
      const taskId = (created.task as { taskId?: unknown } | undefined)?.taskId;
      if (typeof taskId !== 'string') return created;
      const cancel = (): void => void send(live, 'tasks/cancel', { taskId }, {}).catch(() => undefined);
      options.signal?.addEventListener('abort', cancel, { once: true });
      // Its ttl, pollInterval, status and statusMessage are the server's: whoever waits on the call hears them.
      options.ontask?.(created.task as Record<string, unknown>);
      if (options.ontask) this.taskWatchers.set(taskId, options.ontask);
      try {
        return await send(live, 'tasks/result', { taskId }, sdkOptions);
      } finally {
        options.signal?.removeEventListener('abort', cancel);
        this.taskWatchers.delete(taskId);
      }
    });
  }

  private async exchange(
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    sender: Sender,
  ): Promise<Record<string, unknown>> {
    this.inFlight += 1;
    const token = options.onprogress ? `factorly-${++this.nextToken}` : undefined;
    if (token) this.progress.set(token, options.onprogress!);
    try {
      const live = await this.connect();
      const relay = relayingSignal(options.signal);
      try {
        const withToken = token
          ? { ...params, _meta: { ...(params?._meta as object | undefined), progressToken: token } }
          : params;
        const sdkOptions = { signal: relay.signal, timeout: options.timeoutMs };
        // A token the server refused mid-session was renewed by the auth provider: the request goes once more.
        return await sender(live, withToken, sdkOptions).catch((error: unknown) => {
          if (tokenRenewed(error)) return sender(live, withToken, sdkOptions);
          throw error;
        });
      } catch (error) {
        if (!live.closed) throw error;
        const tail = live.stderr().trim();
        throw new UpstreamClosedError(
          `upstream MCP server "${this.server}" stopped while this call was in flight (${(error as Error).message}); ` +
            `it will be started again on the next call${tail ? `. Its last stderr: ${tail}` : ''}`,
        );
      } finally {
        relay.release();
      }
    } finally {
      this.inFlight -= 1;
      if (token) this.progress.delete(token);
    }
  }

  /** Sends a notification if the connection is open (one not open yet has nothing to be told). */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    const live = await this.live?.catch(() => undefined);
    await live?.client.notification({ method, params } as never);
  }

  /** What the server said of itself at initialization: capabilities, server info, instructions (opens the connection if needed). */
  async introduction(): Promise<ServerIntroduction> {
    const live = await this.connect();
    const { client } = live;
    const instructions = client.getInstructions();
    const info = client.getServerVersion() as Record<string, unknown> | undefined;
    return {
      capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
      ...(info ? { info } : {}),
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  /** Process id of the running stdio server, if any (for diagnostics and tests). */
  async pid(): Promise<number | undefined> {
    return this.live ? (await this.live.catch(() => undefined))?.pid : undefined;
  }

  async close(): Promise<void> {
    this.stopped = true;
    const live = await this.live?.catch(() => undefined);
    this.live = undefined;
    await live?.client.close();
  }

  private connect(): Promise<Live> {
    if (this.stopped)
      return Promise.reject(
        new FactorlyError('UPSTREAM_FAILED', `upstream MCP server "${this.server}" has been stopped`),
      );
    if (!this.live) {
      const opening = this.open(++this.generation);
      this.live = opening;
      opening.catch(() => {
        if (this.live === opening) this.live = undefined;
      });
    }
    return this.live;
  }

  private async open(generation: number): Promise<Live> {
    const wires = wiresFor(this.target, this.spoken);
    let refused: string | undefined;
    for (const wire of wires) {
      let attempt = await this.attempt(wire, generation, refused);
      // The login's first 401 sends the stored token, a refused one is renewed: each is one more try.
      for (let more = 2; attempt.renewed && more > 0; more -= 1)
        attempt = await this.attempt(wire, generation, refused);
      if (attempt.live) {
        this.spoken = wire;
        return attempt.live;
      }
      // Only a Streamable HTTP refusal with a 4xx (not 401) goes on to the legacy SSE transport.
      if (!attempt.legacy || wire === wires.at(-1)) throw attempt.error;
      refused = attempt.legacy;
    }
    throw new FactorlyError('UPSTREAM_FAILED', `upstream MCP server "${this.server}": no transport to try`);
  }

  /** One try at connecting over `wire`; `legacy` says why Streamable HTTP was refused, when SSE may be next. */
  private async attempt(
    wire: Wire,
    generation: number,
    refused?: string,
  ): Promise<
    { live: Live; renewed?: undefined } | { live?: undefined; error: Error; legacy?: string; renewed?: boolean }
  > {
    let challenge: LoginChallenge | undefined;
    const { transport, stderr } = await openTransport(
      this.target,
      wire,
      this.resolve,
      (seen) => (challenge = seen),
      this.auth,
    );
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    // Loaded with the SDK (zod comes with them), not when the plugin is: most processes never connect.
    const loose = await import('./loose-schemas.js');
    const client = new Client({ name: 'factorly', version: '0.1.0' }, { capabilities: this.capabilities });
    const live: Live = { client, closed: false, stderr, loose };
    wireClient(client, loose, {
      capabilities: this.capabilities,
      server: this.server,
      route: this.route,
      progress: (token, progress) => this.progress.get(token)?.(progress),
      taskStatus: (task) => this.taskWatchers.get(String(task.taskId))?.(task),
      toolsChanged: () => this.events?.toolsChanged(this),
    });
    let connected = false;
    client.onclose = () => {
      live.closed = true;
      // Forget this connection so the next request opens a new one (unless another already did). A
      // failed try (the SDK closes it itself) is no connection to forget: the next try belongs to the
      // same opening, which forgetting would orphan, left open.
      if (connected && this.generation === generation) this.live = undefined;
    };
    client.onerror = () => undefined; // transport errors surface as failed requests or a close
    try {
      await client.connect(transport, { timeout: this.target.connectTimeoutMs ?? CONNECT_TIMEOUT_MS });
      connected = true;
    } catch (error) {
      await client.close().catch(() => undefined);
      if (tokenRenewed(error)) return { error: error as Error, renewed: true };
      if (challenge) return { error: new LoginRequiredError(this.server, challenge, error) };
      const tail = stderr().trim();
      const before = refused ? ` (over legacy SSE, after Streamable HTTP was refused: ${refused})` : '';
      const failure = new FactorlyError(
        'UPSTREAM_FAILED',
        `could not connect to upstream MCP server "${this.server}"${before}: ${httpFailure(error)}${tail ? `. Its stderr: ${tail}` : ''}`,
      );
      return { error: failure, ...(wire === 'http' && speaksLegacySse(error) ? { legacy: httpFailure(error) } : {}) };
    }
    live.pid = (transport as { pid?: number | null }).pid ?? undefined;
    return { live };
  }
}
