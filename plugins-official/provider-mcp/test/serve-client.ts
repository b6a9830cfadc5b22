import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/**
 * A real MCP SDK client speaking to `factorly serve` over stdio in `root`, with the server's stderr
 * kept; `env` is added to the isolated environment, `capabilities` are the client's, and `prepare`
 * sets its handlers before it connects.
 */
export async function serveClient(
  root: string,
  options: {
    env?: Record<string, string>;
    capabilities?: Record<string, unknown>;
    prepare?: (client: Client) => void;
  } = {},
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve'],
    cwd: root,
    env: isolatedEnv(root, options.env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: 'upstreams-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  options.prepare?.(client);
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** Runs the CLI without blocking this process (a test's own loopback server must keep answering), with `input` on stdin. */
export async function runCliAsync(
  args: string[],
  cwd: string,
  input = '',
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: isolatedEnv(cwd, env), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.stdin.end(input);
  // 'close' comes after both pipes have been read to their end.
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

/** A loopback HTTP server answering every request 401 with an MCP authorization challenge. */
export async function unauthorizedServer(): Promise<{ url: string; metadata: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    const metadata = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/oauth-protected-resource`;
    response.writeHead(401, { 'WWW-Authenticate': `Bearer resource_metadata="${metadata}"` }).end('login first');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    metadata: `${base}/.well-known/oauth-protected-resource`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL nothing listens on (a port taken, then given back). */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/mcp`;
}
