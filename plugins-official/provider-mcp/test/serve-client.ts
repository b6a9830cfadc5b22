import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from '../../../test/helpers/project.js';
import { isolatedEnv } from '../../../test/helpers/listening.js';

/** `node <fixture> <mode> …` as the command and args of an mcp entry, in YAML. */
export function upstreamFixture(mode: string, ...args: string[]): string {
  const script = fileURLToPath(new URL('./fixtures/upstream-modes.mjs', import.meta.url));
  return `command: ${JSON.stringify(process.execPath)}\n    args: ${JSON.stringify([script, mode, ...args])}`;
}

/** A real MCP SDK client speaking to `factorly serve` over stdio in `root`, with the server's stderr kept. */
export async function serveClient(root: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve'],
    cwd: root,
    env: isolatedEnv(root),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: 'upstreams-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
