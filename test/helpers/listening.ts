import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A process serving MCP over HTTP, started by a test. */
export interface Listening {
  child: ChildProcess;
  /** The `/mcp` URL it printed on stderr. */
  url: string;
  stderr(): string;
  /** Sends `signal` (SIGTERM by default: factorly flushes its log as it stops) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** An environment with nothing of the host's config, vault or XDG dirs in it. */
export function isolatedEnv(root: string, extra: NodeJS.ProcessEnv = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: root,
    XDG_CONFIG_HOME: join(root, '.xdg-config'),
    XDG_DATA_HOME: join(root, '.xdg-data'),
    ...extra,
  } as Record<string, string>;
}

/**
 * Runs `node <args>` and resolves once it prints the URL it serves MCP at (factorly's
 * "Streamable HTTP at <url>", or a fixture's "listening on <url>"); rejects with its stderr if it
 * exits first.
 */
export function spawnListening(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Listening> {
  const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /(?:listening on|Streamable HTTP at) (http:\/\/\S+\/mcp)/i.exec(stderr);
      if (match) resolve({ child, url: match[1]!, stderr: () => stderr, stop });
    });
    void exited.then((code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening: ${stderr}`)));
  });
}

/** A loopback port nothing listens on now (one a server or a redirect URI must name before it starts). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
