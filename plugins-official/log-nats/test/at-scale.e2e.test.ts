import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kvm } from '@nats-io/kv';
import { jetstream } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PluginDefinition } from 'factorly';
import { type Projection, type Recorded, ReplicatedEventLog } from 'factorly/events';
import { requested, startTestKernel } from 'factorly/testing';
import { countingStream } from '../../../test/helpers/counting-stream.js';
import { answeringProvider } from '../../../test/helpers/instant.js';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { natsSettingsOf } from '../src/nats-settings.js';
import { NatsBatchStream } from '../src/nats-stream.js';
import { ECHO, natsLogBlock } from './nats-project.js';
import { closeAll, freshStream, natsLog, streamEvents } from './open-nats.js';
import { pausableProxy, type PausableProxy } from './pausable-proxy.js';

const KILLED_WRITER = fileURLToPath(new URL('fixtures/killed-writer.mjs', import.meta.url));
const TWO_MB = 2 * 1024 * 1024;
let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: inject('natsServers') });
});
afterAll(() => nc?.close());

/** Tool type `scale`: answers `bytes` bytes of output; with `stall`, holds the log's proxy that long first. */
function scalePlugin(proxy?: PausableProxy): PluginDefinition {
  return answeringProvider('scale', async ({ params }) => {
    const stall = Number(params.stall ?? 0);
    if (stall > 0 && proxy) {
      proxy.pause();
      setTimeout(() => proxy.resume(), stall);
    }
    return { output: 'a'.repeat(Number(params.bytes ?? 2)), exitCode: 0 };
  });
}
const SCALE =
  '  scale:\n    type: scale\n    parameters: [{name: bytes, type: integer}, {name: stall, type: integer}]\n';

/** What a stream message is, read as the plugin's README documents it. */
function kindOf(payload: Uint8Array): string {
  if (payload[0] === 0x5b) return 'batch';
  const end = payload.indexOf(0x0a);
  const header = JSON.parse(Buffer.from(payload.subarray(0, end < 0 ? payload.length : end)).toString('utf8'));
  return Object.keys(header)[0]!;
}

/** A snapshot kept in the bucket, as the log writes it: a 4-byte length, a JSON header, the state. */
function snapshotHeader(value: Uint8Array): { stamp: string; seq: number } {
  const bytes = Buffer.from(value.subarray(1));
  return JSON.parse(bytes.subarray(4, 4 + bytes.readUInt32LE(0)).toString('utf8'));
}

const snapshotKey = (name: string): string => `snapshot.${Buffer.from(name).toString('base64url')}`;

/** The kind of every message on the stream, in order. */
async function kinds(stream: string): Promise<string[]> {
  const nats = new NatsBatchStream(natsSettingsOf({ servers: inject('natsServers'), stream }), async () => undefined);
  const out: string[] = [];
  for await (const message of nats.read(1, await nats.last())) out.push(kindOf(message.payload));
  await nats.close();
  return out;
}

describe('the nats log at scale', () => {
  it(
    'records a 2 MB output (max_output_bytes raised) as fragments and a commit, returns it, and reads it back on a new node',
    { timeout: 60_000 },
    async () => {
      const stream = freshStream('big');
      const yaml = `${natsLogBlock(stream, inject('natsServers'), '  max_output_bytes: 4194304\n')}tools:\n${SCALE}`;
      const root = tempProject();
      const test = await startTestKernel(yaml, [scalePlugin()], { root, log: 'project', official: ['log-nats'] });
      try {
        const outcome = await test.call('scale', { bytes: TWO_MB });
        expect(outcome).toMatchObject({ status: 'success', exitCode: 0 });
        expect(outcome.output).toHaveLength(TWO_MB);
      } finally {
        await test.stop();
      }
      const completed = (await streamEvents(stream)).find(
        (event) => event.type === 'call.completed',
      ) as Recorded<'call.completed'>;
      expect(completed.data.output).toMatchObject({ bytes: TWO_MB, truncated: false });
      expect(completed.data.output.text).toHaveLength(TWO_MB);
      expect(await kinds(stream)).toEqual(expect.arrayContaining(['fragment', 'commit']));
      // Another node, that never saw it written: the CLI on the same stream (the tool's type is this test's).
      writeFileSync(
        join(root, '.factorly', 'factorly.yaml'),
        natsLogBlock(stream, inject('natsServers'), '  max_output_bytes: 4194304\n'),
      );
      const verified = runCli(['logs', 'verify'], root);
      expect(verified.status, verified.stderr).toBe(0);
      expect(verified.stdout).toContain('Chain verified');
    },
  );

  it(
    'skips the fragments a writer killed between two leaves: the log verifies, and the next node writes after them',
    { timeout: 90_000 },
    async () => {
      const stream = freshStream('killed');
      const root = tempProject({ '.factorly/factorly.yaml': `${natsLogBlock(stream)}tools:\n${ECHO('echo.say')}` });
      expect(runCli(['call', 'echo.say', '--text', 'before'], root).status).toBe(0);
      const killed = spawnSync(process.execPath, [KILLED_WRITER, JSON.stringify(inject('natsServers')), stream], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect((await kinds(stream)).at(-1)).toBe('fragment');
      expect(runCli(['logs', 'verify'], root)).toMatchObject({
        status: 0,
        stdout: expect.stringContaining('Chain verified'),
      });
      expect(runCli(['call', 'echo.say', '--text', 'after'], root)).toMatchObject({ status: 0, stdout: 'after\n' });
      expect(runCli(['logs', 'verify'], root)).toMatchObject({
        status: 0,
        stdout: expect.stringContaining('Chain verified'),
      });
      const texts = (await streamEvents(stream)).flatMap((event) =>
        event.type === 'call.requested' ? [(event as Recorded<'call.requested'>).data.params.text] : [],
      );
      expect(texts).toEqual(['before', 'after']);
    },
  );

  it('bounds the wait of one call on the log by timeout, over all its appends', { timeout: 60_000 }, async () => {
    const proxy = await pausableProxy(inject('natsServers')[0]!);
    const yaml = `${natsLogBlock(freshStream('deadline'), [proxy.url])}tools:\n${SCALE}`;
    const test = await startTestKernel(yaml, [scalePlugin(proxy)], { log: 'project', official: ['log-nats'] });
    try {
      expect(await test.call('scale', {})).toMatchObject({ status: 'success' });
      // The request waits 2 s for the stream; the tool then holds it 2 s more: 4 s in all, past the 3 s timeout.
      proxy.pause();
      setTimeout(() => proxy.resume(), 2_000);
      const started = Date.now();
      const outcome = await test.call('scale', { stall: 2_000 });
      const waited = Date.now() - started;
      expect(outcome).toMatchObject({
        status: 'error',
        error: expect.stringContaining('the call has waited on it for its whole timeout (3s in all'),
      });
      expect(waited).toBeLessThan(3_000 + 1_000);
    } finally {
      await test.stop();
      await proxy.close();
    }
  });

  it('lets a node that joins a long stream read its tail only, from snapshots kept in the KV bucket and object store', async () => {
    const stream = freshStream('join');
    const counter: Projection<number> = { name: 'test.counter', init: () => 0, evolve: (n) => n + 1 };
    // A state larger than one message: its snapshot goes to the object store.
    const large: Projection<{ fill: string; n: number }> = {
      name: 'test.large',
      init: () => ({ fill: 'x'.repeat(1_500_000), n: 0 }),
      evolve: (state) => ({ fill: state.fill, n: state.n + 1 }),
    };
    const writer = natsLog(stream);
    writer.project(counter);
    writer.project(large);
    for (let i = 0; i < 30; i += 1)
      await writer.append(Array.from({ length: 20 }, (_, j) => requested(`c${i * 20 + j}`)));
    // Looking a call up loads the call pages (a node that keeps running does it by itself): written out at close.
    await writer.readCall('c0');
    await closeAll([writer]);

    const kv = await new Kvm(jetstream(nc)).open(`${stream}-derived`);
    const entry = await kv.get(snapshotKey('test.counter'));
    const snapshot = snapshotHeader(entry!.value);
    expect(snapshot).toMatchObject({ stamp: expect.stringMatching(/^1:[0-9a-f]{16}$/) });
    expect(snapshot.seq).toBeGreaterThanOrEqual(256);
    expect((await kv.get(snapshotKey('test.large')))!.value[0]).toBe(1);
    const object = await (await new Objm(jetstream(nc)).open(`${stream}-derived`)).info(snapshotKey('test.large'));
    expect(object!.size).toBeGreaterThan(1_500_000);

    const settings = natsSettingsOf({ servers: inject('natsServers'), stream, replicas: 3 });
    const { stream: counted, read } = countingStream(new NatsBatchStream(settings, async () => undefined));
    const node = new ReplicatedEventLog(counted, { timeoutMs: settings.timeoutMs });
    try {
      const [joined] = await node.append([requested('joined')]);
      // Every event counts: the calls, and the records of the snapshots' digests the writer appended.
      expect(joined!.seq).toBeGreaterThan(601);
      expect((await node.project(counter).current()).state).toBe(joined!.seq);
      expect((await node.project(large).current()).state.n).toBe(joined!.seq);
      expect((await node.readCall('c3')).map((event) => event.seq)).toEqual([4]);
      expect(read.messages).toBeLessThan(10);
    } finally {
      await node.close();
    }
  });
});
