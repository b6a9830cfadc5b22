import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { ECHO, natsLogBlock, natsProject } from './nats-project.js';
import { freshStream } from './open-nats.js';

let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connect({ servers: inject('natsServers') });
  jsm = await jetstreamManager(nc);
});
afterAll(() => nc?.close());

/** The seq of the first event of the stream's batch at `position`. */
async function firstSeqAt(stream: string, position: number): Promise<number> {
  const message = await jsm.streams.getMessage(stream, { seq: position });
  return (JSON.parse(message!.string()) as { seq: number }[])[0]!.seq;
}

describe('a log stream that cannot lose history quietly', () => {
  it('is created with deny_delete and deny_purge and no limits, so the servers refuse to delete from it', async () => {
    const { root, stream } = natsProject(ECHO('echo.say'));
    expect(runCli(['call', 'echo.say', '--text', 'one'], root).status).toBe(0);
    const { config } = await jsm.streams.info(stream);
    expect(config).toMatchObject({ deny_delete: true, deny_purge: true, max_msgs: -1, max_bytes: -1, max_age: 0 });
    await expect(jsm.streams.deleteMessage(stream, 1)).rejects.toThrow(/not permitted/);
  });

  it(
    'refuses an existing stream that lets messages go; allowed by allow_mutable_stream, a deleted last or middle batch fails logs verify, naming the seq',
    { timeout: 90_000 },
    async () => {
      const stream = freshStream('mut');
      await jsm.streams.add({ name: stream, subjects: [`factorly.${stream}.events`], num_replicas: 3 });
      const strict = natsProject(ECHO('echo.say'), stream).root;
      expect(runCli(['call', 'echo.say', '--text', 'x'], strict)).toMatchObject({
        status: 1,
        stderr: expect.stringContaining(
          `the stream ${stream} lets events be removed from the log (deny_delete: false, deny_purge: false)`,
        ),
      });
      const root = tempProject({
        '.factorly/factorly.yaml': `${natsLogBlock(stream, inject('natsServers'), '  allow_mutable_stream: true\n')}tools:\n${ECHO('echo.say')}`,
      });
      for (const text of ['one', 'two', 'three']) {
        const run = runCli(['call', 'echo.say', '--text', text], root);
        expect(run.status).toBe(0);
        expect(run.stderr).toContain('warning: the stream');
      }
      expect(runCli(['logs', 'verify'], root).status).toBe(0);

      const { state } = await jsm.streams.info(stream);
      const last = state.last_seq;
      const lastSeq = await firstSeqAt(stream, last);
      await jsm.streams.deleteMessage(stream, last);
      const cut = runCli(['logs', 'verify'], root);
      expect(cut.status).toBe(1);
      expect(cut.stderr).toContain(
        `Chain broken at seq ${lastSeq} (deleted): seq ${lastSeq} is missing: the stream's message at position ${last}`,
      );

      const middle = Math.floor(last / 2);
      const middleSeq = await firstSeqAt(stream, middle);
      await jsm.streams.deleteMessage(stream, middle);
      const gap = runCli(['logs', 'verify', '--json'], root);
      expect(gap.status).toBe(1);
      expect(JSON.parse(gap.stdout)).toMatchObject({
        ok: false,
        verified: middleSeq - 1,
        firstBad: { kind: 'deleted', seq: middleSeq, reason: expect.stringContaining(`position ${middle}`) },
      });
    },
  );
});
