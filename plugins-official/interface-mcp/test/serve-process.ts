import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../../../test/helpers/project.js';
import { projectEvents } from '../../../test/helpers/events.js';
import { isolatedEnv, spawnListening, type Listening } from '../../../test/helpers/listening.js';

export type HttpServe = Listening;

/** Starts `factorly serve --port 0 …` (or the --port given) in `root` and waits for the address it prints. */
export function startHttpServe(root: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServe> {
  const port = args.includes('--port') ? [] : ['--port', '0'];
  return spawnListening([BIN, 'serve', ...port, ...args], { cwd: root, env: isolatedEnv(root, env) });
}

export async function httpClient(
  url: string,
  token?: string,
  capabilities: ClientCapabilities = {},
  name = 'http-test',
): Promise<Client> {
  const client = new Client({ name, version: '1.2.3' }, { capabilities });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export async function stdioClient(
  root: string,
  args: string[] = [],
  capabilities: ClientCapabilities = {},
  name = 'stdio-test',
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args],
    cwd: root,
    env: isolatedEnv(root),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name, version: '0.9.0' }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export { projectEvents };

export { eventually } from '../../../test/helpers/eventually.js';
