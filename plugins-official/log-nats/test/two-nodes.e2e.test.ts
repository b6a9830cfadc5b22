import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callIdOf, type Recorded, verifyChain } from 'factorly/events';
import { isolatedEnv, spawnListening, type Listening } from '../../../test/helpers/listening.js';
import { BIN, makeProject } from '../../../test/helpers/project.js';
import { freshStream, streamEvents } from './open-nats.js';
import { ECHO, natsLogBlock } from './nats-project.js';

const ROUNDS = 5;
const TOOLS = Array.from({ length: ROUNDS }, (_, round) => ECHO(`limited.r${round}`, '10/min')).join('');

interface Node {
  server: Listening;
  client: Client;
}

const stream = freshStream('two');
const nodes: Node[] = [];

/** A `factorly serve` of its own project dir whose log is the shared stream, with an MCP client on it. */
async function startNode(): Promise<Node> {
  const root = makeProject({ '.factorly/factorly.yaml': `${natsLogBlock(stream)}tools:\n${TOOLS}` });
  const server = await spawnListening([BIN, 'serve', '--port', '0'], { cwd: root, env: isolatedEnv(root) });
  const client = new Client({ name: `agent-${nodes.length}`, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return { server, client };
}

beforeAll(async () => {
  nodes.push(...(await Promise.all([startNode(), startNode()])));
}, 60_000);

afterAll(async () => {
  for (const node of nodes) {
    await node.client.close().catch(() => undefined);
    await node.server.stop();
  }
});

describe('two factorly nodes on one NATS stream', () => {
  it(
    'admit exactly 10 of 40 concurrent calls to a 10/min tool split across them, round after round',
    { timeout: 180_000 },
    async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const tool = `limited.r${round}`;
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            nodes[i % 2]!.client.callTool({ name: tool, arguments: { text: `${round}-${i}` } }),
          ),
        );
        const admitted = results.filter((result) => !result.isError);
        expect(admitted, `round ${round}`).toHaveLength(10);
        expect(
          results
            .filter((result) => result.isError)
            .map((result) => JSON.stringify(result.content))
            .filter((text) => !text.includes('rate limited')),
        ).toEqual([]);
      }
      const events = await streamEvents(stream);
      expect(
        await verifyChain(
          (async function* () {
            yield* events;
          })(),
        ),
      ).toEqual({ ok: true, verified: events.length });
      const tools = new Map(
        events
          .filter((event) => event.type === 'call.requested')
          .map((event) => [callIdOf(event), (event as Recorded<'call.requested'>).data.tool]),
      );
      for (let round = 0; round < ROUNDS; round += 1) {
        const completed = events.filter(
          (event) => event.type === 'call.completed' && tools.get(callIdOf(event)) === `limited.r${round}`,
        );
        expect(completed.map((event) => (event as Recorded<'call.completed'>).data.status).sort()).toEqual([
          ...Array(30).fill('blocked'),
          ...Array(10).fill('success'),
        ]);
      }
      // Each node admitted fewer than its 20 calls would alone: the decisions were taken on the shared stream.
      expect(tools.size).toBe(40 * ROUNDS);
    },
  );
});
