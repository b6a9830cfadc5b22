import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callIdOf, type Recorded, verifyChain } from 'factorly/events';
import { isolatedEnv, spawnListening, type Listening } from '../../../test/helpers/listening.js';
import { startNatsCluster, type NatsCluster } from '../../../test/helpers/nats-cluster.mjs';
import { BIN, makeProject } from '../../../test/helpers/project.js';
import { freshStream, streamEvents } from './open-nats.js';

// A cluster of its own: this test kills its servers, the shared one serves other files meanwhile.
let cluster: NatsCluster;
let server: Listening;
let client: Client;
let marks: string;
const stream = freshStream('loss');

beforeAll(async () => {
  cluster = await startNatsCluster(3);
  const root = makeProject({});
  marks = join(root, 'marks');
  mkdirSync(marks);
  const yaml =
    `log:\n  engine: nats\n  servers: [${cluster.servers.join(', ')}]\n  stream: ${stream}\n  replicas: 3\n  timeout: 12000\n` +
    `tools:\n  mark:\n    type: cli\n    command: touch\n    args: ["${marks}/{{name}}"]\n    parameters: [{name: name, required: true}]\n`;
  mkdirSync(join(root, '.factorly'));
  (await import('node:fs')).writeFileSync(join(root, '.factorly', 'factorly.yaml'), yaml);
  server = await spawnListening([BIN, 'serve', '--port', '0'], { cwd: root, env: isolatedEnv(root) });
  client = new Client({ name: 'burst', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
}, 90_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await server?.stop();
  await cluster?.stop();
});

const clusterEvents = (): Promise<Recorded[]> => streamEvents(stream, { servers: cluster.servers, timeoutMs: 15_000 });

/** Index of the server leading the stream now. */
async function leaderIndex(): Promise<number> {
  const nc = await connect({ servers: cluster.servers });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    return cluster.nodes.findIndex((node) => node.name === info.cluster?.leader);
  } finally {
    await nc.close();
  }
}

const call = (name: string) => client.callTool({ name: 'mark', arguments: { name } });

describe('the nats log when JetStream servers go away', () => {
  it(
    'loses no acknowledged call when the stream leader is killed mid-burst; without quorum calls are refused before they run; back, it catches up',
    { timeout: 150_000 },
    async () => {
      expect((await call('warm')).isError).toBeFalsy();
      const burst = Array.from({ length: 30 }, (_, i) => call(`burst-${i}`));
      await cluster.kill(await leaderIndex());
      const results = await Promise.all(burst);
      const succeeded = results.flatMap((result, i) => (result.isError ? [] : [`burst-${i}`]));
      const refused = results.filter((result) => result.isError).map((result) => JSON.stringify(result.content));
      expect(refused.filter((text) => !text.includes('refused before the tool ran'))).toEqual([]);

      let events = await clusterEvents();
      expect(
        await verifyChain(
          (async function* () {
            yield* events;
          })(),
        ),
      ).toEqual({ ok: true, verified: events.length });
      const requested = new Map(
        events
          .filter((e) => e.type === 'call.requested')
          .map((e) => [
            (e as Recorded<'call.requested'>).data.callId,
            (e as Recorded<'call.requested'>).data.params.name,
          ]),
      );
      const completedOk = events
        .filter((e) => e.type === 'call.completed' && (e as Recorded<'call.completed'>).data.status === 'success')
        .map((e) => requested.get(callIdOf(e)!));
      // Every call answered with success is on the stream as completed; every tool that ran was recorded first.
      expect(completedOk).toEqual(expect.arrayContaining(succeeded));
      for (const mark of readdirSync(marks)) expect([...requested.values()]).toContain(mark);

      // Two of three gone: no quorum. The call is refused and its tool never runs.
      const second = cluster.nodes.findIndex((node) => node.process);
      await cluster.kill(second);
      const blind = await call('without-quorum');
      expect(blind.isError).toBe(true);
      expect(JSON.stringify(blind.content)).toContain('refused before the tool ran: the call could not be recorded');
      expect(existsSync(join(marks, 'without-quorum'))).toBe(false);

      // Servers back: the node reconnects, catches up and records again.
      await Promise.all(cluster.nodes.flatMap((node, index) => (node.process ? [] : [cluster.restart(index)])));
      const after = await call('after');
      expect(after.isError, JSON.stringify(after.content)).toBeFalsy();
      events = await clusterEvents();
      expect(
        await verifyChain(
          (async function* () {
            yield* events;
          })(),
        ),
      ).toEqual({ ok: true, verified: events.length });
      // A request the stream stored only after the call gave up on it reads as refused, never as running.
      const late = events.find(
        (e) => e.type === 'call.requested' && (e as Recorded<'call.requested'>).data.params.name === 'without-quorum',
      );
      if (late) {
        const ofCall = events.filter((e) => callIdOf(e) === callIdOf(late)).map((e) => e.type);
        expect(ofCall.at(-1)).toBe('call.interrupted');
        expect(ofCall).not.toContain('call.completed');
      }
      expect(existsSync(join(marks, 'without-quorum'))).toBe(false);
      expect(existsSync(join(marks, 'after'))).toBe(true);
    },
  );
});
