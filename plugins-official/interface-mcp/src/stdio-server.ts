import { randomUUID } from 'node:crypto';
import { McpSession, type SessionContext } from './session.js';
import { loadSdk } from './sdk.js';
import { FramedStdioTransport } from './stdio-transport.js';

export interface StdioOptions {
  /** The largest message read (`--max-message-size`); a longer line is answered with an error. */
  maxMessageBytes: number;
  warn(message: string): void;
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
  const session = new McpSession(randomUUID(), context, sdk);
  const input = options.input ?? process.stdin;
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
    void session.closed.then(resolve);
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await session.server.connect(
    new FramedStdioTransport(input, options.output ?? process.stdout, options.maxMessageBytes, options.warn),
  );
  await ended;
  await context.sessions.drain();
  await session.server.close();
  await session.end();
}
