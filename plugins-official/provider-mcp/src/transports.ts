import { toolEnvironment } from '@factorly/process-kit';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { challengeWatchingFetch, type LoginChallenge } from './login.js';
import type { McpTarget } from './mcp-spec.js';

/** How much of an upstream's stderr is kept, to explain why it died. */
const STDERR_TAIL = 2_048;

/** The wire a connection speaks: a child's stdio, Streamable HTTP, or the legacy HTTP+SSE transport. */
export type Wire = 'stdio' | 'http' | 'sse';

export interface OpenedTransport {
  transport: Transport;
  /** The tail of a stdio server's stderr (empty for HTTP). */
  stderr: () => string;
}

type Resolve = (template: string) => Promise<string>;

/**
 * The wires to try for a target, in order: stdio for a command; for a URL, its `transport`, or with
 * none, Streamable HTTP then SSE (`remembered` skips the probe once a server turned out to speak SSE).
 */
export function wiresFor(target: McpTarget, remembered?: Wire): Wire[] {
  if (target.kind === 'stdio') return ['stdio'];
  if (target.transport !== 'auto') return [target.transport];
  return remembered === 'sse' ? ['sse'] : ['http', 'sse'];
}

/**
 * Whether a failed Streamable HTTP initialize means the server speaks the legacy SSE transport: it
 * refused the POST with a 4xx (404, 405 …), as the MCP spec's backwards-compatibility rule says. A
 * 401 is a login, never a reason to try another wire (a challenge seen is a login before this is asked).
 */
export function speaksLegacySse(error: unknown): boolean {
  const status = (error as { code?: unknown } | undefined)?.code;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 401;
}

/**
 * Opens the transport for one wire; a 401 the server answers is told to `onChallenge`. An HTTP wire
 * gets the login's `authProvider` (the oauth plugin's, backed by the token store), which puts the
 * stored token on every request and answers the server's 401 with the SDK's discovery.
 */
export async function openTransport(
  target: McpTarget,
  wire: Wire,
  resolve: Resolve,
  onChallenge: (challenge: LoginChallenge) => void,
  authProvider?: OAuthClientProvider,
): Promise<OpenedTransport> {
  if (target.kind === 'http') {
    const headers = Object.fromEntries(
      await Promise.all(Object.entries(target.headers).map(async ([k, v]) => [k, await resolve(v)] as const)),
    );
    const url = new URL(await resolve(target.url));
    const options = {
      requestInit: { headers },
      fetch: challengeWatchingFetch(onChallenge),
      ...(authProvider ? { authProvider } : {}),
    };
    if (wire === 'sse') {
      // The SDK marks it deprecated; legacy servers still speak only it.
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      return { transport: new SSEClientTransport(url, options), stderr: () => '' };
    }
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return { transport: new StreamableHTTPClientTransport(url, options), stderr: () => '' };
  }
  // Built as a tool's (the base, env_passthrough, its env); the SDK adds its own defaults beneath,
  // which are all in the base.
  const env = toolEnvironment({
    env: Object.fromEntries(
      await Promise.all(Object.entries(target.env).map(async ([k, v]) => [k, await resolve(v)] as const)),
    ),
    passthrough: target.passthrough,
  });
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    command: await resolve(target.command),
    args: await Promise.all(target.args.map((arg) => resolve(arg))),
    env,
    stderr: 'pipe',
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { transport, stderr: () => tail };
}

/** A connect failure as text, with the HTTP status the SDK's transports keep beside their message. */
export function httpFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { code?: unknown } | undefined)?.code;
  return typeof status === 'number' && status >= 100 ? `answered HTTP ${status}: ${message}` : message;
}
