import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { bindProblem } from '@factorly/net-guard';
import { HttpGuard, type GuardOptions } from './http-guard.js';
import { loadSdk } from './sdk.js';
import { McpSession, type SessionContext } from './session.js';

export interface HttpOptions extends GuardOptions {
  info: { name: string; version: string };
  /** Told the address once listening (the port is real even when 0 was asked for). */
  listening(url: string): void;
  /** A session with no request and no open stream for this long is closed (0: never). */
  idleMs: number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

interface Live {
  session: McpSession;
  transport: StreamableHTTPServerTransport;
  /** Requests (and SSE streams) of this session whose response is still open. */
  open: number;
  lastSeen: number;
}

/**
 * Streamable HTTP at `/mcp`, one SDK transport and session per client session (`mcp-session-id`).
 * Every request passes the guard (Host, Origin, bearer token) first. On `signal`: new requests
 * get 503, calls in flight finish and are answered, then sessions and connections close.
 */
export async function serveHttp(context: SessionContext, options: HttpOptions, signal: AbortSignal): Promise<void> {
  const exposed = bindProblem(options.host, Boolean(options.token), 'pass --http-token (or set FACTORLY_HTTP_TOKEN)');
  if (exposed) throw new Error(exposed);
  const sdk = await loadSdk();
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const live = new Map<string, Live>();
  let draining = false;
  let guard: HttpGuard | undefined;

  const open = async (): Promise<Live> => {
    const id = randomUUID();
    const session = new McpSession(id, context, sdk.newServer(options.info), sdk.schemas);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void live.set(id, entry),
      onsessionclosed: () => void forget(entry),
    });
    const entry: Live = { session, transport, open: 0, lastSeen: Date.now() };
    transport.onclose = () => void forget(entry);
    await session.server.connect(transport);
    return entry;
  };
  const forget = async (entry: Live): Promise<void> => {
    live.delete(entry.session.id);
    await context.sessions.closed(entry.session);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (draining) return plain(response, 503, 'factorly is shutting down');
    const refusal = guard!.check(request);
    if (refusal) return plain(response, refusal.status, refusal.message, refusal.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
    if (new URL(request.url ?? '/', 'http://x').pathname !== '/mcp') return plain(response, 404, 'not found: MCP is served at /mcp');
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    if (body && 'error' in body) return plain(response, body.status, body.error);
    const sessionId = header(request, 'mcp-session-id');
    const known = sessionId === undefined ? undefined : live.get(sessionId);
    if (sessionId !== undefined && !known) return jsonRpcError(response, 404, 'Session not found');
    const entry = known ?? (isInitialize(body?.value) ? await open() : undefined);
    if (!entry) return jsonRpcError(response, 400, 'Bad Request: no mcp-session-id header and not an initialize request');
    entry.open += 1;
    entry.lastSeen = Date.now();
    response.once('close', () => {
      entry.open -= 1;
      entry.lastSeen = Date.now();
    });
    await entry.transport.handleRequest(request, response, body?.value);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) plain(response, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else response.end();
    });
  });
  const port = await listen(server, options.host, options.port);
  guard = new HttpGuard({ ...options, port });
  options.listening(`http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/mcp`);
  const reaper = options.idleMs > 0 ? setInterval(() => reapIdle(live, options.idleMs), Math.min(options.idleMs, 60_000)) : undefined;
  reaper?.unref();
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  clearInterval(reaper);
  draining = true;
  server.close();
  await context.sessions.drain();
  await Promise.allSettled([...live.values()].map((entry) => entry.transport.close()));
  server.closeAllConnections();
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
      const why = error.code === 'EADDRINUSE' ? 'is already in use' : error.code === 'EACCES' ? 'needs more privileges' : `failed: ${error.message}`;
      reject(new Error(`cannot serve HTTP on ${host}:${port}: the port ${why}`));
    });
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
}

async function readJson(request: IncomingMessage): Promise<{ value: unknown } | { error: string; status: number }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { error: `request body over ${MAX_BODY_BYTES} bytes`, status: 413 };
    chunks.push(chunk);
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { error: 'request body is not JSON', status: 400 };
  }
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize');
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function plain(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(`${message}\n`);
}

function jsonRpcError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

