import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { BIN } from '../../../test/helpers/project.js';
import {
  awkwardSecret,
  canaryProject,
  cliTools,
  dyingUpstream,
  providerTools,
  reflector,
  wireSafeSecret,
} from './canary-fixtures.js';
import { runCliAsync } from './cli-run.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';

type Result = Awaited<ReturnType<Client['callTool']>>;

/** Every string in an MCP response, and the response as JSON (which holds the JSON-escaped forms). */
function textsOf(value: unknown): string[] {
  const out: string[] = [JSON.stringify(value)];
  const walk = (item: unknown): void => {
    if (typeof item === 'string') out.push(item);
    else if (Array.isArray(item)) item.forEach(walk);
    else if (item && typeof item === 'object') Object.values(item).forEach(walk);
  };
  walk(value);
  return out;
}

function text(result: Result): string {
  return (result.content as { type: string; text?: string }[]).map((item) => item.text ?? '').join('\n');
}

/** `factorly serve` over stdio in `root`, as an agent launches it; its stderr is collected. */
async function serve(root: string, env: NodeJS.ProcessEnv): Promise<{ client: Client; stderr: () => string }> {
  const stringEnv = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve'],
    cwd: root,
    env: stringEnv,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'canary', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('canary through MCP: vault secrets used by CLI, REST and upstream MCP tools never reach the agent', () => {
  it(
    'is redacted from every tools/call result, absent from the server stderr, the log and .factorly/',
    { timeout: 180_000 },
    async () => {
      const secret = awkwardSecret();
      const wireSecret = wireSafeSecret();
      const { root, env } = canaryProject(cliTools('CANARY') + providerTools('CANARY_NET', await reflector()));
      const cli = (args: string[]) => runCliAsync(args, root, env);
      expect((await cli(['vault', 'set', 'CANARY', secret])).status).toBe(0);
      expect((await cli(['vault', 'set', 'CANARY_NET', wireSecret])).status).toBe(0);

      const { client, stderr } = await serve(root, env);
      const responses: unknown[] = [];
      const call = async (name: string, args: Record<string, unknown> = {}): Promise<Result> => {
        const result = await client.callTool({ name, arguments: args });
        responses.push(result);
        return result;
      };
      try {
        responses.push(await client.listTools());
        const printed = await call('leak');
        expect(printed.isError).toBeFalsy();
        expect(text(printed)).toContain(`sha256=${createHash('sha256').update(secret).digest('hex')}`);
        expect(
          text(printed)
            .split('\n')
            .slice(1, 8)
            .every((line) => line.includes('[REDACTED:CANARY]')),
        ).toBe(true);

        const failed = await call('leak', { code: '3' });
        expect(failed.isError).toBe(true);
        expect(text(failed)).toContain('[REDACTED:CANARY]');

        expect(text(await call('hydrated', { token: '{{vault:CANARY}}' }))).toBe('[REDACTED:CANARY]\n');

        const reflected = JSON.parse(text(await call('reflect')));
        expect(reflected).toMatchObject({
          url: '/echo/[REDACTED:CANARY_NET]',
          headers: { 'x-api-key': '[REDACTED:CANARY_NET]', authorization: 'Bearer [REDACTED:CANARY_NET]' },
        });

        expect(text(await call('up.get-env'))).toContain('"CANARY_ENV": "[REDACTED:CANARY_NET]"');
        // A reference the agent writes is forwarded as text, never resolved.
        expect(text(await call('up.echo', { message: '{{vault:CANARY_NET}}' }))).toBe('Echo: {{vault:CANARY_NET}}');
        // A sandbox script gets the inner call's output already scrubbed, and so does the agent.
        const script =
          'async function run() { const inner = await factorly.call("leak", {}); return inner.output + "\\n" + (await factorly.call("reflect", {})).output; }';
        const scripted = text(await call('factorly.code', { code: script }));
        expect(scripted).toContain('[REDACTED:CANARY]');
        expect(scripted).toContain('"x-api-key":"[REDACTED:CANARY_NET]"');
      } finally {
        await client.close();
      }

      const logs = await cli(['logs', '--json']);
      const completed = logs.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string; status: string; interface?: string });
      expect(
        completed.filter((entry) => entry.interface === 'mcp').map((entry) => `${entry.tool}:${entry.status}`),
      ).toEqual([
        'leak:success',
        'leak:error',
        'hydrated:success',
        'reflect:success',
        'up.get-env:success',
        'up.echo:success',
        'factorly.code:success',
      ]);
      for (const value of [secret, wireSecret]) {
        for (const [i, response] of responses.entries())
          expect(
            textsOf(response).flatMap((item) => leaksIn(item, value)),
            `response ${i}`,
          ).toEqual([]);
        expect(leaksIn(stderr(), value), 'server stderr').toEqual([]);
        expect(leaksIn(logs.stdout + logs.stderr, value), 'logs').toEqual([]);
        expect(leaksUnder(root, value)).toEqual([]);
      }
    },
  );

  it(
    'is redacted from the error serve prints when an upstream quotes it on stderr as it fails to start',
    { timeout: 120_000 },
    async () => {
      const secret = wireSafeSecret();
      const { root, env } = canaryProject(dyingUpstream('CANARY'));
      const cli = (args: string[]) => runCliAsync(args, root, env);
      expect((await cli(['vault', 'set', 'CANARY', secret])).status).toBe(0);
      // The upstream is started at boot and fails alone: serve (and any command listing tools) says why on stderr and goes on.
      const runs = [await cli(['serve']), await cli(['tools']), await cli(['tools', '--json'])];
      for (const run of runs) {
        expect(run.status).toBe(0);
        expect(run.stderr).toContain('could not connect to upstream MCP server "dying"');
        expect(run.stderr).toContain('upstream got [REDACTED:CANARY]');
        expect(leaksIn(run.stdout + run.stderr, secret)).toEqual([]);
      }
      expect(leaksUnder(root, secret)).toEqual([]);
    },
  );
});
