// The SDK is imported when a server is first started, not with the plugin: every CLI command
// loads the plugins, and most never talk to an upstream server.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpTarget } from './mcp-spec.js';
import type { UpstreamResult } from './result.js';

const CONNECT_TIMEOUT_MS = 30_000;
/** How much of an upstream's stderr is kept, to explain why it died. */
const STDERR_TAIL = 2_048;

interface Connection {
  client: Client;
  transport: Transport;
  closed: boolean;
  stderr: () => string;
  pid?: number;
}

export class UpstreamClosedError extends Error {}

/**
 * One upstream MCP server, connected once and reused by every call. When its process dies or its
 * connection drops, the call in flight fails with an `UpstreamClosedError` and the next call
 * starts it again. `stop()` closes it for good (the SDK ends stdin, then SIGTERM, then SIGKILL).
 */
export class Upstream {
  private connection?: Promise<Connection>;
  /** Counts connections, so a late close of an old one never forgets a newer one. */
  private generation = 0;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly target: McpTarget,
    /** Resolves `{{backend:KEY}}` in the target's command, args, env, url and headers. */
    private readonly resolve: (template: string) => Promise<string>,
  ) {}

  async listTools(): Promise<Tool[]> {
    const { client } = await this.connect();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async call(remote: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<UpstreamResult> {
    const connection = await this.connect();
    try {
      return (await connection.client.callTool({ name: remote, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs })) as UpstreamResult;
    } catch (error) {
      if (!connection.closed) throw error;
      const tail = connection.stderr().trim();
      throw new UpstreamClosedError(
        `upstream MCP server "${this.name}" stopped while this call was in flight (${(error as Error).message}); ` +
          `it will be started again on the next call${tail ? `. Its last stderr: ${tail}` : ''}`,
      );
    }
  }

  /** Process id of the running stdio server, if any (for diagnostics and tests). */
  async pid(): Promise<number | undefined> {
    return this.connection ? (await this.connection.catch(() => undefined))?.pid : undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const connection = await this.connection?.catch(() => undefined);
    this.connection = undefined;
    await connection?.client.close();
  }

  private connect(): Promise<Connection> {
    if (this.stopped) return Promise.reject(new Error(`upstream MCP server "${this.name}" has been stopped`));
    if (!this.connection) {
      const opening = this.open(++this.generation);
      this.connection = opening;
      opening.catch(() => {
        if (this.connection === opening) this.connection = undefined;
      });
    }
    return this.connection;
  }

  private async open(generation: number): Promise<Connection> {
    const { transport, stderr } = await this.transport();
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'factorly', version: '0.1.0' });
    const connection: Connection = { client, transport, closed: false, stderr };
    client.onclose = () => {
      connection.closed = true;
      // Forget this connection so the next call starts a new one (unless another already did).
      if (this.generation === generation) this.connection = undefined;
    };
    client.onerror = () => undefined; // transport errors surface as failed requests or a close
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (error) {
      await client.close().catch(() => undefined);
      const tail = stderr().trim();
      throw new Error(`could not connect to upstream MCP server "${this.name}": ${(error as Error).message}${tail ? `. Its stderr: ${tail}` : ''}`);
    }
    connection.pid = (transport as { pid?: number | null }).pid ?? undefined;
    return connection;
  }

  private async transport(): Promise<{ transport: Transport; stderr: () => string }> {
    if (this.target.kind === 'http') {
      const headers = Object.fromEntries(await Promise.all(Object.entries(this.target.headers).map(async ([k, v]) => [k, await this.resolve(v)] as const)));
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const transport = new StreamableHTTPClientTransport(new URL(await this.resolve(this.target.url)), { requestInit: { headers } });
      return { transport, stderr: () => '' };
    }
    const env = Object.fromEntries(await Promise.all(Object.entries(this.target.env).map(async ([k, v]) => [k, await this.resolve(v)] as const)));
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: await this.resolve(this.target.command),
      args: await Promise.all(this.target.args.map((arg) => this.resolve(arg))),
      env,
      stderr: 'pipe',
    });
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    return { transport, stderr: () => tail };
  }
}
