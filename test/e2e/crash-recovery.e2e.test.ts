import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { projectEvents } from '../helpers/events.js';
import { isolatedEnv } from '../helpers/listening.js';
import { BIN, runCli, tempProject } from '../helpers/project.js';

const SLOW =
  'tools:\n  slow:\n    type: cli\n    command: sleep\n    args: ["{{seconds}}"]\n    parameters: [{name: seconds, required: true}]\n';

/** Starts factorly in its own process group, so SIGKILL takes the tools it started along with it. */
function start(args: string[], root: string): { child: ChildProcess; exited: Promise<unknown>; stderr: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: root,
    env: isolatedEnv(root),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)), stderr: () => stderr };
}

async function requestedCalls(root: string): Promise<number> {
  return (await projectEvents(root)).filter((event) => event.type === 'call.requested').length;
}

function calls(root: string): { call_id: string; status: string; error: string | null }[] {
  return runCli(['logs', '--json'], root)
    .stdout.trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('a writer killed with SIGKILL leaves no call running', () => {
  it(
    'factorly call: the call in flight is interrupted after the next open, in logs, show and stats',
    { timeout: 90_000 },
    async () => {
      const root = tempProject({ '.factorly/factorly.yaml': SLOW });
      runCli(['call', 'slow', '--seconds', '0'], root);
      const crashed = start(['call', 'slow', '--seconds', '60'], root);
      await expect.poll(() => requestedCalls(root), { timeout: 30_000, interval: 100 }).toBe(2);
      process.kill(-crashed.child.pid!, 'SIGKILL');
      await crashed.exited;

      const [done, killed] = calls(root);
      expect(done).toMatchObject({ status: 'success' });
      expect(killed).toMatchObject({
        status: 'interrupted',
        error: expect.stringMatching(/^outcome unknown: the process ended before the call completed \(pid \d+ on /),
      });
      expect(runCli(['logs', 'show', killed!.call_id], root).stdout).toMatch(/^slow \[interrupted\] /);
      expect(JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout).byStatus).toEqual({
        success: 1,
        interrupted: 1,
      });
      // Marked once: opening again finds nothing left open.
      const interrupted = (await projectEvents(root)).filter((event) => event.type === 'call.interrupted');
      runCli(['logs'], root);
      expect((await projectEvents(root)).filter((event) => event.type === 'call.interrupted')).toEqual(interrupted);
      expect(runCli(['logs', 'verify'], root).status).toBe(0);
    },
  );

  it(
    'factorly serve: every call in flight is interrupted and its session closed with the reason',
    { timeout: 90_000 },
    async () => {
      const root = tempProject({ '.factorly/factorly.yaml': SLOW });
      const server = start(['serve', '--port', '0'], root);
      await expect
        .poll(() => /Streamable HTTP at (\S+\/mcp)/.exec(server.stderr())?.[1], { timeout: 30_000 })
        .toBeTruthy();
      const url = /Streamable HTTP at (\S+\/mcp)/.exec(server.stderr())![1]!;
      const client = new Client({ name: 'doomed-agent', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      // Never answered: the server dies under them (their failures are not what is tested).
      for (let i = 0; i < 3; i += 1)
        client.callTool({ name: 'slow', arguments: { seconds: '60' } }).catch(() => undefined);
      await expect.poll(() => requestedCalls(root), { timeout: 30_000, interval: 100 }).toBe(3);
      process.kill(-server.child.pid!, 'SIGKILL');
      await server.exited;
      void client.close().catch(() => undefined);

      expect(calls(root).map((call) => call.status)).toEqual(['interrupted', 'interrupted', 'interrupted']);
      const events = await projectEvents(root);
      const opened = events.filter((event) => event.type === 'session.opened');
      const closed = events.filter((event) => event.type === 'session.closed').map((event) => event.data);
      expect(closed).toEqual(
        opened.map((event) => ({
          sessionId: (event.data as { sessionId: string }).sessionId,
          iface: 'mcp',
          reason: expect.stringMatching(/^the process serving it ended \(pid \d+/),
        })),
      );
      expect(JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout).byStatus).toEqual({ interrupted: 3 });
      expect(runCli(['logs', 'replay', '--until', String(events.at(-1)!.seq)], root).stdout).toMatch(
        /slow \[mcp\] interrupted/,
      );
    },
  );
});
