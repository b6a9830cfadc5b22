import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { callIdOf, type Recorded } from 'factorly/events';
import { isolatedEnv } from '../../../test/helpers/listening.js';
import { BIN, runCli, tempProject } from '../../../test/helpers/project.js';
import { freshStream, streamEvents } from './open-nats.js';
import { ECHO, natsLogBlock } from './nats-project.js';

const SLOW =
  '  slow:\n    type: cli\n    command: sleep\n    args: ["{{seconds}}"]\n    parameters: [{name: seconds, required: true}]\n';

describe('a node killed with SIGKILL on a shared stream', () => {
  it(
    'leaves its call in flight to the next node on the same host, which closes it as interrupted',
    { timeout: 90_000 },
    async () => {
      const stream = freshStream('crash');
      const yaml = `${natsLogBlock(stream)}tools:\n${SLOW}${ECHO('echo.say')}`;
      const [doomed, survivor] = [
        tempProject({ '.factorly/factorly.yaml': yaml }),
        tempProject({ '.factorly/factorly.yaml': yaml }),
      ];
      const server = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
        cwd: doomed,
        env: isolatedEnv(doomed),
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise((resolve) => server.once('exit', resolve));
      await expect.poll(() => /Streamable HTTP at (\S+\/mcp)/.exec(stderr)?.[1], { timeout: 30_000 }).toBeTruthy();
      const client = new Client({ name: 'doomed-agent', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(/Streamable HTTP at (\S+\/mcp)/.exec(stderr)![1]!)),
      );
      client.callTool({ name: 'slow', arguments: { seconds: '60' } }).catch(() => undefined);
      const requested = async () =>
        (await streamEvents(stream)).find(
          (event) => event.type === 'call.requested' && (event as Recorded<'call.requested'>).data.tool === 'slow',
        );
      await expect.poll(requested, { timeout: 30_000, interval: 200 }).toBeTruthy();
      const call = (await requested())!;
      expect((call as Recorded<'call.requested'>).data.writer).toEqual(expect.any(String));
      process.kill(-server.pid!, 'SIGKILL');
      await exited;
      void client.close().catch(() => undefined);

      expect(runCli(['call', 'echo.say', '--text', 'after'], survivor)).toMatchObject({ status: 0, stdout: 'after\n' });
      const closed = (await streamEvents(stream)).filter((event) => callIdOf(event) === callIdOf(call));
      expect(closed.at(-1)).toMatchObject({
        type: 'call.interrupted',
        data: {
          reason: expect.stringMatching(/^outcome unknown: the process ended before the call completed \(pid \d+ on /),
        },
      });
      const calls = runCli(['logs', '--json'], survivor)
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string; status: string });
      expect(calls.map((entry) => [entry.tool, entry.status])).toEqual([
        ['slow', 'interrupted'],
        ['echo.say', 'success'],
      ]);
    },
  );
});
