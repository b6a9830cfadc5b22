import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export interface StdioCommand {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

interface Session {
  http: StreamableHTTPServerTransport;
  child: StdioClientTransport;
  /** Requests from the client still waiting for the child's answer, oldest first. */
  pending: RequestId[];
  /** The client's progress tokens, by the request that carried them. */
  progress: Map<string | number, RequestId>;
}

/**
 * A transparent Streamable HTTP front for a stdio MCP server, for test tools that only speak HTTP
 * (the conformance suite). Each HTTP session starts its own child process; JSON-RPC messages are
 * copied both ways unchanged. What the child sends on its own goes on the stream of the request it
 * belongs to: progress by its token, anything else on the latest request still waiting (stdio
 * carries no such link). The child stops when the session ends: DELETE, or the client dropping
 * its standalone GET stream (which SDK clients hold open for as long as they are connected).
 */
export async function bridgeStdioToHttp(spawn: StdioCommand): Promise<{ url: string; close: () => Promise<void> }> {
  const sessions = new Map<string, Session>();
  const server = createServer(
    (req, res) => void handle(req, res).catch((error: Error) => fail(res, 500, error.message)),
  );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!session) {
      if (id !== undefined || !isInitializeRequest(body)) return fail(res, 400, 'no valid session id');
      session = await open();
    }
    if (req.method === 'GET') res.once('close', () => void session.http.close());
    await session.http.handleRequest(req, res, body);
  }

  async function open(): Promise<Session> {
    const child = new StdioClientTransport({ ...spawn, stderr: 'inherit' });
    const session: Session = {
      child,
      pending: [],
      progress: new Map(),
      http: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, session),
      }),
    };
    const { http } = session;
    http.onmessage = (message) => {
      if (isJSONRPCRequest(message)) {
        session.pending.push(message.id);
        const token = message.params?._meta?.progressToken;
        if (token !== undefined) session.progress.set(token, message.id);
      }
      void child.send(message);
    };
    child.onmessage = (message) => void http.send(message, { relatedRequestId: relatedRequest(session, message) });
    http.onclose = () => {
      if (http.sessionId) sessions.delete(http.sessionId);
      void child.close();
    };
    child.onclose = () => void http.close();
    await child.start();
    await http.start();
    return session;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((session) => session.child.close()));
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function relatedRequest(session: Session, message: JSONRPCMessage): RequestId | undefined {
  if ('id' in message && ('result' in message || 'error' in message)) {
    session.pending = session.pending.filter((id) => id !== message.id);
    return undefined; // a response finds its own stream
  }
  if ('method' in message && message.method === 'notifications/progress') {
    const token = (message.params as { progressToken?: string | number } | undefined)?.progressToken;
    if (token !== undefined && session.progress.has(token)) return session.progress.get(token);
  }
  return session.pending.at(-1);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function fail(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.end();
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
