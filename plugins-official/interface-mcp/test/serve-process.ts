import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { LmdbEventLog } from '../../../src/events/lmdb-log.js';
import type { Recorded } from '../../../src/events/envelope.js';
import { BIN } from '../../../test/helpers/project.js';

/** A sandboxed environment: no host config, vault or XDG dirs leak into the test. */
export function isolatedEnv(root: string, extra: NodeJS.ProcessEnv = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: root, XDG_CONFIG_HOME: join(root, '.xdg-config'), XDG_DATA_HOME: join(root, '.xdg-data'), ...extra } as Record<string, string>;
}

export interface HttpServe {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `factorly serve --port 0 …` in `root` and waits for the address it prints. */
export async function startHttpServe(root: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServe> {
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [BIN, 'serve', ...port, ...args], { cwd: root, env: isolatedEnv(root, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  return {
    child,
    url,
    stderr: () => stderr,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function httpClient(url: string, token?: string, capabilities: ClientCapabilities = {}, name = 'http-test'): Promise<Client> {
  const client = new Client({ name, version: '1.2.3' }, { capabilities });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export async function stdioClient(root: string, args: string[] = [], capabilities: ClientCapabilities = {}, name = 'stdio-test'): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', ...args], cwd: root, env: isolatedEnv(root), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name, version: '0.9.0' }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export async function projectEvents(root: string): Promise<Recorded[]> {
  const log = new LmdbEventLog({ path: join(root, '.factorly', 'events.lmdb') });
  const out: Recorded[] = [];
  for await (const event of log.read()) out.push(event);
  await log.close();
  return out;
}

/** Polls until `check` passes (for effects of another process), failing with its last error. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
