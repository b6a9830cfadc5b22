import { randomUUID } from 'node:crypto';
import { McpSession, type SessionContext } from './session.js';
import { loadSdk } from './sdk.js';

export interface StdioOptions {
  info: { name: string; version: string };
  /** Defaults to the process's stdin and stdout. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/**
 * Serves one MCP session over stdio until the client closes stdin or `signal` aborts; either way
 * the calls in flight finish (and their answers are written) before it resolves. A stdio transport
 * has no session id of its own, so one is made: it is the agent id on every event of this session.
 */
export async function serveStdio(context: SessionContext, options: StdioOptions, signal: AbortSignal): Promise<void> {
  const sdk = await loadSdk();
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const session = new McpSession(randomUUID(), context, sdk.newServer(options.info), sdk.schemas);
  const input = options.input ?? process.stdin;
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
    session.server.onclose = () => resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await session.server.connect(new StdioServerTransport(input as never, (options.output ?? process.stdout) as never));
  await ended;
  await context.sessions.drain();
  await session.server.close();
  await context.sessions.closed(session);
}
