import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { FactorlyError } from '@factorly/error-kit';
import { bindProblem } from '@factorly/net-guard';
import { answerPerRequest, streamsNothing } from './answer-mode.js';
import { checkText, errorReply, type ErrorReply } from './framing.js';
import type { Authenticator } from './http-auth.js';
import type { Principal } from './principal.js';
import { HttpGuard, type GuardOptions } from './http-guard.js';
import { jsonRpcError, jsonRpcReply, MCP_PATH, plain, refuseToken, serveMetadata } from './http-replies.js';
import { loadSdk } from './sdk.js';
import { McpSession, type SessionContext } from './session.js';

export interface HttpOptions extends GuardOptions {
  /** Who a request's bearer token says made it: the authenticator in force (a config reload may replace it). */
  auth(): Authenticator;
  /** Told the address once listening (the port is real even when 0 was asked for). */
  listening(url: string): void;
  /** A session with no request and no open stream for this long is closed (0: never). */
  idleMs: number;
  /** The largest request body read (`--max-message-size`); a bigger one is answered 413. */
  maxMessageBytes: number;
  warn(message: string): void;
}

/** How long a shutdown waits for the answers of finished calls to be written before it closes the connections. */
const ANSWER_GRACE_MS = 5_000;

const NO_SESSION = 'Bad Request: no mcp-session-id header and not an initialize request';

interface Live {
  session: McpSession;
  /** Who opened the session: every later request of it must come from the same agent. */
  principal?: Principal;
  transport: StreamableHTTPServerTransport;
  /** Marks a POST body to be answered as plain JSON rather than an SSE stream. */
  answers: { plain(body: object): void };
  /** Requests (and SSE streams) of this session whose response is still open. */
  open: number;
  lastSeen: number;
}

/**
 * Streamable HTTP at `/mcp`, one SDK transport and session per client session (`mcp-session-id`).
 * Every request passes the guard (Host, Origin) and then the authenticator (its bearer token) first;
 * a session belongs to the agent that opened it. With `serve.oauth`, the RFC 9728 metadata is served
 * at its well-known places. On `signal`: new requests get 503, calls in flight finish and are
 * answered, then sessions and connections close.
 */
export async function serveHttp(context: SessionContext, options: HttpOptions, signal: AbortSignal): Promise<void> {
  const exposed = bindProblem(
    options.host,
    options.auth().required,
    'pass --http-token (or set FACTORLY_HTTP_TOKEN), or configure serve.tokens or serve.oauth',
  );
  if (exposed) throw new FactorlyError('USAGE', exposed);
  const sdk = await loadSdk();
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const live = new Map<string, Live>();
  /** POSTs being answered: a shutdown lets each answer be written before it closes the connections. */
  const answering = new Set<Promise<void>>();
  let draining = false;
  let guard: HttpGuard | undefined;

  const open = async (principal: Principal | undefined): Promise<Live> => {
    const id = randomUUID();
    const session = new McpSession(id, context, sdk, principal);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void live.set(id, entry),
      onsessionclosed: () => void forget(entry),
    });
    const answers = answerPerRequest(transport);
    const entry: Live = { session, transport, answers, principal, open: 0, lastSeen: Date.now() };
    transport.onclose = () => void forget(entry);
    await session.server.connect(transport);
    return entry;
  };
  const forget = async (entry: Live): Promise<void> => {
    live.delete(entry.session.id);
    await entry.session.end();
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (draining) return plain(response, 503, 'factorly is shutting down');
    const who = await admit(request, response, guard!, options.auth());
    if (!who) return;
    if (new URL(request.url ?? '/', 'http://x').pathname !== MCP_PATH)
      return plain(response, 404, 'not found: MCP is served at /mcp');
    const body = request.method === 'POST' ? await readMessage(request, options) : undefined;
    if (body && 'reply' in body) return jsonRpcReply(response, body.status, body.reply);
    const sessionId = header(request, 'mcp-session-id');
    const known = sessionId === undefined ? undefined : live.get(sessionId);
    if (sessionId !== undefined && !known) return jsonRpcError(response, 404, 'SESSION_NOT_FOUND', 'Session not found');
    if (known && keyOf(known.principal) !== keyOf(who.principal))
      return plain(response, 403, 'this session belongs to another agent');
    const entry = known ?? (isInitialize(body?.value) ? await open(who.principal) : undefined);
    if (!entry) return jsonRpcError(response, 400, 'REQUEST_INVALID', NO_SESSION);
    busyUntilClosed(entry, response);
    if (!body) return entry.transport.handleRequest(request, response);
    if (streamsNothing(body.value, entry.session)) entry.answers.plain(body.value as object);
    const answer = entry.transport.handleRequest(request, response, body.value);
    answering.add(answer);
    await answer.finally(() => answering.delete(answer));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        plain(response, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else response.end();
    });
  });
  const port = await listen(server, options.host, options.port);
  guard = new HttpGuard({ ...options, port });
  options.listening(`http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/mcp`);
  const reaper =
    options.idleMs > 0
      ? setInterval(() => reapIdle(live, options.idleMs), Math.min(options.idleMs, 60_000))
      : undefined;
  reaper?.unref();
  await new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  clearInterval(reaper);
  draining = true;
  await closeDown(server, context, live, answering);
}

/** Stops taking connections, lets the calls in flight finish and their answers be written, then closes every session and connection. */
async function closeDown(
  server: HttpServer,
  context: SessionContext,
  live: Map<string, Live>,
  answering: Set<Promise<void>>,
): Promise<void> {
  server.close();
  await context.sessions.drain();
  // A client that stops reading must not hold the shutdown: its answer gets a few seconds.
  await Promise.race([Promise.allSettled([...answering]), delay(ANSWER_GRACE_MS, undefined, { ref: false })]);
  await Promise.allSettled([...live.values()].map((entry) => entry.transport.close()));
  server.closeAllConnections();
}

/**
 * The front door: Host and Origin, then the well-known metadata (which needs no token), then the
 * bearer token. Who made the request, or undefined once it has been answered.
 */
async function admit(
  request: IncomingMessage,
  response: ServerResponse,
  guard: HttpGuard,
  auth: Authenticator,
): Promise<{ principal?: Principal } | undefined> {
  const refusal = guard.check(request);
  if (refusal) return void plain(response, refusal.status, refusal.message);
  if (serveMetadata(request, response, auth.oauth)) return undefined;
  const who = await auth.authenticate(request.headers.authorization);
  if ('refusal' in who) return void refuseToken(request, response, who.refusal, auth.oauth);
  return who;
}

/** A session is in use while any of its responses (or SSE streams) is open. */
function busyUntilClosed(entry: Live, response: ServerResponse): void {
  entry.open += 1;
  entry.lastSeen = Date.now();
  response.once('close', () => {
    entry.open -= 1;
    entry.lastSeen = Date.now();
  });
}

/**
 * Clients often go away without a DELETE; a session nobody has used for `idleMs` (no request, no
 * open stream) is closed, which records `session.closed` and lets its upstream connections go. A
 * client that comes back gets 404 and, as the protocol says, starts a new session.
 */
function reapIdle(live: Map<string, Live>, idleMs: number): void {
  const cutoff = Date.now() - idleMs;
  for (const entry of live.values()) if (entry.open === 0 && entry.lastSeen < cutoff) void entry.transport.close();
}

function listen(server: HttpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'is already in use'
          : error.code === 'EACCES'
            ? 'needs more privileges'
            : `failed: ${error.message}`;
      reject(new FactorlyError('LISTEN_FAILED', `cannot serve HTTP on ${host}:${port}: the port ${why}`));
    });
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
}

/**
 * A POST body as one checked JSON-RPC message (see framing.ts), or the error to answer with: 413 for
 * a body over the size limit, 400 with the JSON-RPC error for anything else.
 */
async function readMessage(
  request: IncomingMessage,
  options: HttpOptions,
): Promise<{ value: unknown } | { reply: ErrorReply; status: number }> {
  const body = await readBody(request, options.maxMessageBytes);
  if (body === undefined) {
    options.warn(
      `refused an HTTP request body of more than ${options.maxMessageBytes} bytes (--max-message-size); the session goes on`,
    );
    return {
      status: 413,
      reply: errorReply(
        null,
        'REQUEST_INVALID',
        `Invalid Request: the body is over the limit of ${options.maxMessageBytes} bytes (--max-message-size)`,
      ),
    };
  }
  const checked = checkText(body.toString('utf8'));
  if ('reply' in checked) return { status: 400, reply: checked.reply };
  if ('drop' in checked)
    return {
      status: 400,
      reply: errorReply(null, 'REQUEST_INVALID', `Invalid Request: ${checked.drop}`),
    };
  return { value: checked.message };
}

/** The whole body, or undefined as soon as it is over `limit` (the rest is read and thrown away, so the answer can still be sent). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) resolve(undefined);
      else chunks.push(chunk);
    });
    request.on('end', () => size <= limit && resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function isInitialize(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A principal as a session remembers it: the kind of token and the agent it names. */
function keyOf(principal: Principal | undefined): string {
  return principal ? `${principal.kind}:${principal.agentId ?? ''}` : '';
}
