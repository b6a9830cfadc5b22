import type { CallGateway, Params } from 'factorly';
import { toMcpResult } from './call-result.js';
import { inputSchemaOf } from './tool-schema.js';

export interface StdioOptions {
  name: string;
  version: string;
  /** Defaults to the process's stdin and stdout. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

/**
 * Serves the registry over MCP stdio: `tools/list` shows the visible tools with their real input
 * schemas, `tools/call` goes through the call gateway (so every call is validated, governed,
 * output-processed and logged). Resolves when the client closes stdin or `signal` aborts.
 */
export async function serveStdio(gateway: CallGateway, options: StdioOptions, signal: AbortSignal): Promise<void> {
  const [{ Server }, { StdioServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server({ name: options.name, version: options.version }, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: gateway.tools().filter((tool) => !tool.hidden).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: inputSchemaOf(tool) as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const outcome = await gateway.call({ tool: request.params.name, params: (request.params.arguments ?? {}) as Params, iface: 'mcp', sessionId: extra.sessionId });
    return toMcpResult(outcome);
  });
  const input = options.input ?? process.stdin;
  const transport = new StdioServerTransport(input as never, (options.output ?? process.stdout) as never);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    input.once('end', () => void server.close());
    input.once('close', () => void server.close());
    signal.addEventListener('abort', () => void server.close(), { once: true });
  });
  await server.connect(transport);
  await closed;
}
