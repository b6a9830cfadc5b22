import { afterEach, describe, expect, it, vi } from 'vitest';
import { FactorlyError } from '../../src/base/errors.js';
import { messageOf } from '../../src/events/batch-fragments.js';
import type { BatchStream } from '../../src/events/batch-stream.js';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import { writerEventId } from '../../src/events/lmdb-inflight.js';
import type { EventLog } from '../../src/events/log.js';
import type { Projection } from '../../src/events/projection.js';
import { ReplicatedEventLog } from '../../src/events/replicated-log.js';
import { serialize } from 'node:v8';
import { snapshotDigest } from '../../src/events/snapshot-digest.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/events/snapshot-store.js';
import { sideKey } from '../../src/events/side-store.js';
import { verifyChain } from '../../src/events/verify.js';
import { verifyEventLog } from '../../src/events/verify-events.js';
import { completed, requested } from '../../src/testing/contracts/event-log.js';
import { countingStream } from '../helpers/counting-stream.js';
import { MemoryBatchStream } from '../helpers/memory-batch-stream.js';

const opened: EventLog[] = [];
afterEach(() => Promise.all(opened.splice(0).map((log) => log.close())));

function open(stream: BatchStream, timeoutMs?: number): ReplicatedEventLog {
  const log = new ReplicatedEventLog(stream, { timeoutMs });
  opened.push(log);
  return log;
}

async function all(log: EventLog): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for await (const event of log.read()) out.push(event);
  return out;
}

/** A request whose params alone take `bytes`: more than a 2 KiB message holds. */
const large = (callId: string, bytes = 6_000): NewEvent => ({
  type: 'call.requested',
  data: { callId, rootId: callId, tool: 'echo', params: { text: 'x'.repeat(bytes) }, iface: 'cli' },
});
const callIds = (events: readonly Recorded[]) => events.map((event) => (event.data as { callId?: string }).callId);
const codeOf = (error: unknown) => (FactorlyError.isInstance(error) ? error.code : error);

/** A node killed after its stream stored `fragments` of its messages: nothing more goes out. */
function killedAfter(node: BatchStream, fragments: number): BatchStream {
  let sent = 0;
  return {
    ...node,
    append: async (payload, id, after) => {
      if (sent >= fragments) throw new FactorlyError('LOG_WRITE_FAILED', 'the writer was killed');
      sent += 1;
      return node.append(payload, id, after);
    },
  };
}

describe('a batch larger than one stream message', () => {
  it('travels as fragments and a commit, and reads back whole on a node that never saw it written', async () => {
    const shared = new MemoryBatchStream(2048);
    const [written] = await open(shared.node()).append([large('big', 9_000)]);
    expect(shared.batches.map((batch) => messageOf(batch.payload).kind)).toEqual([
      'fragment',
      'fragment',
      'fragment',
      'fragment',
      'fragment',
      'commit',
    ]);
    const reader = open(shared.node());
    expect(await all(reader)).toEqual([written]);
    expect(await verifyChain(reader.read())).toEqual({ ok: true, verified: 1 });
  });

  it('left half-sent by a killed writer, is skipped by every reader and is no gap: the log verifies and goes on', async () => {
    const shared = new MemoryBatchStream(2048);
    await open(shared.node()).append([requested('before')]);
    const killed = await open(killedAfter(shared.node(), 2))
      .append([large('lost')])
      .catch((error: unknown) => error);
    expect(codeOf(killed)).toBe('LOG_WRITE_FAILED');
    expect(shared.batches.slice(1).map((batch) => messageOf(batch.payload).kind)).toEqual(['fragment', 'fragment']);
    // The orphans at the end of the stream: a node joining there reads past them and writes after them.
    const next = open(shared.node());
    expect(callIds(await all(next))).toEqual(['before']);
    await next.append([requested('after'), large('big-after')]);
    // Now in the middle: a node reading from the start skips them.
    const auditor = open(shared.node());
    expect(callIds(await all(auditor))).toEqual(['before', 'after', 'big-after']);
    expect(await verifyChain(auditor.read())).toEqual({ ok: true, verified: 3 });
    expect(await auditor.stoppedShort()).toBeUndefined();
  });

  it("reads newest first across whole batches, fragments and a killed writer's orphans, on a node that never saw them", async () => {
    const shared = new MemoryBatchStream(2048);
    const writer = open(shared.node());
    await writer.append([requested('a')]);
    await writer.append([large('b')]);
    await open(killedAfter(shared.node(), 1))
      .append([large('lost')])
      .catch(() => undefined);
    await writer.append([requested('c'), requested('d')]);
    const reader = open(shared.node());
    const newest: Recorded[] = [];
    for await (const event of reader.read({ reverse: true })) newest.push(event);
    expect(callIds(newest)).toEqual(['d', 'c', 'b', 'a']);
    const limited: Recorded[] = [];
    for await (const event of open(shared.node()).read({ reverse: true, to: 3, limit: 2 })) limited.push(event);
    expect(callIds(limited)).toEqual(['c', 'b']);
  });

  it('is tampering when a fragment is changed or a commit has no fragments before it', async () => {
    const shared = new MemoryBatchStream(2048);
    const writer = open(shared.node());
    await writer.append([requested('a')]);
    await writer.append([large('b')]);
    const fragment = shared.batches[2]!;
    fragment.payload = Buffer.from(Buffer.from(fragment.payload).toString('utf8').replace('xxxx', 'yyyy'));
    const reader = open(shared.node());
    expect(await verifyEventLog(reader)).toMatchObject({
      ok: false,
      verified: 1,
      firstBad: { seq: 2, kind: 'modified', reason: expect.stringContaining('does not hash to its recorded hash') },
    });
    expect(codeOf(await reader.append([requested('c')]).catch((error: unknown) => error))).toBe('LOG_CORRUPT');

    const planted = new MemoryBatchStream(2048);
    await open(planted.node()).append([requested('a')]);
    const commit = { commit: { batch: 'x', parts: 2, bytes: 10, seqs: [2, 2] } };
    await planted.node().append(Buffer.from(JSON.stringify(commit)), 'x', 1);
    const broken = open(planted.node());
    expect(await broken.stoppedShort()).toMatchObject({
      seq: 2,
      kind: 'corrupt',
      reason: expect.stringContaining(
        "the stream's message at position 2 is a commit that does not follow its fragments",
      ),
    });
  });
});

const counter: Projection<number> = { name: 'test.counter', init: () => 0, evolve: (n) => n + 1 };

/** A stream of `calls` calls (two events each, in batches of 20), written by a node that kept its folds beside it. */
async function history(calls: number): Promise<MemoryBatchStream> {
  const shared = new MemoryBatchStream();
  const writer = new ReplicatedEventLog(shared.node());
  writer.project(counter);
  await writer.append([
    {
      id: writerEventId('w-old'),
      type: 'writer.started',
      data: { writer: 'w-old', pid: 1, bootId: 'b', host: 'h', startedAt: 'now' },
    },
    { type: 'call.requested', data: { ...requested('open').data, writer: 'w-old' } },
  ]);
  for (let i = 0; i < calls; i += 10)
    await writer.append(
      Array.from({ length: 10 }, (_, j) => [
        { ...requested(`c${i + j}`), id: `named-${i + j}` },
        completed(`c${i + j}`),
      ]).flat(),
    );
  // Looking a call up loads the call pages (a node that keeps running does it by itself): written out at close.
  await writer.readCall('c0');
  await writer.close();
  return shared;
}

describe('a node joining a long stream', () => {
  it('reads only the tail: its folds come from the snapshots and lookups kept beside the stream', async () => {
    const shared = await history(1_500);
    const head = shared.batches.length;
    const stamp = decodeSnapshot(await shared.side.get(`snapshot.${sideKey('test.counter')}`));
    expect(stamp).toMatchObject({ stamp: expect.stringMatching(/^1:[0-9a-f]{16}$/) });
    expect(stamp!.seq).toBeGreaterThan(2_700);
    expect((await shared.side.keys('calls.')).length).toBeGreaterThan(1);
    const { stream, read } = countingStream(shared.node());
    const node = open(stream);
    node.project(counter);
    const [fresh] = await node.append([requested('new')]);
    // Every event counts: the calls, and the records of the snapshots' digests the writer appended with them.
    expect(fresh!.seq).toBeGreaterThan(3_003);
    expect((await node.project(counter).current()).state).toBe(fresh!.seq);
    expect(read.messages).toBeLessThan(10);
    // Old events on demand, checked against what they are looked up by.
    expect((await node.readCall('c7')).map((event) => event.type)).toEqual(['call.requested', 'call.completed']);
    const [again] = await node.append([{ ...requested('c3'), id: 'named-3' }]);
    expect(again).toMatchObject({ seq: 9, data: { callId: 'c3' } });
    expect((await node.lastOf('writer.started'))?.data).toMatchObject({ writer: 'w-old' });
    const inflight = await node.inflight();
    expect(inflight.calls).toEqual([{ callId: 'open', writer: 'w-old' }]);
    expect(inflight.writers.get('w-old')).toMatchObject({ pid: 1 });
    expect(read.messages).toBeLessThan(40);
    // This node appended its call, and at most the record of the snapshots it keeps beside the stream.
    expect(shared.batches.length).toBeLessThanOrEqual(head + 2);
    const since = (await all(node)).filter((event) => event.seq > fresh!.seq - 1);
    expect(since.filter((event) => !event.type.startsWith('projection.'))).toEqual([fresh]);
  });

  it('keeps the call pages up on a node that has run a while, so a node joining later finds an old call without reading the stream', async () => {
    const shared = new MemoryBatchStream();
    const writer = open(shared.node());
    await writer.append([requested('first')]);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
    try {
      for (let i = 0; i < 4_200; i += 100)
        await writer.append(Array.from({ length: 100 }, (_, j) => requested(`k${i + j}`)));
      await writer.close();
    } finally {
      vi.useRealTimers();
    }
    expect(await shared.side.keys('calls.')).toEqual(expect.arrayContaining(['calls.covered']));
    const { stream, read } = countingStream(shared.node());
    const node = open(stream);
    expect((await node.readCall('k7')).map((event) => event.seq)).toEqual([9]);
    expect(read.messages).toBeLessThan(10);
  });

  it('on a stream written with nothing kept beside it, folds it once and leaves its folds there for the next node', async () => {
    const shared = new MemoryBatchStream();
    const bare = { ...shared.node(), side: undefined };
    const writer = open(bare);
    for (let i = 0; i < 1_000; i += 50)
      await writer.append(Array.from({ length: 50 }, (_, j) => requested(`o${i + j}`)));
    const first = countingStream(shared.node());
    const reader = open(first.stream);
    expect((await reader.project(counter).current()).state).toBe(1_000);
    expect(first.read.messages).toBeGreaterThanOrEqual(20);
    await reader.close();
    const next = countingStream(shared.node());
    const joined = open(next.stream);
    // The calls, and the record of the snapshots the reader left beside the stream.
    expect((await joined.project(counter).current()).state).toBe(1_001);
    expect((await joined.lastOf('projection.saved'))?.seq).toBe(1_001);
    expect(next.read.messages).toBeLessThan(5);
  });

  it('folds a projection whose code changed from seq 1, not from a snapshot of the old code', async () => {
    const shared = await history(200);
    const node = open(shared.node());
    const changed = node.project({ ...counter, version: 2, evolve: (n: number) => n + 2 });
    expect((await changed.current()).state).toBe(2 * (await node.head()).seq);
  });
});

describe('logs rebuild on a replicated log', () => {
  it('folds every projection from seq 1 again and keeps the snapshots beside the stream anew', async () => {
    const shared = await history(300);
    await shared.side.put(`snapshot.${sideKey('test.counter')}`, Buffer.from('not a snapshot'));
    const node = open(shared.node());
    node.project(counter);
    const { seq: before } = await node.head();
    const report = await node.rebuild();
    expect(report).toMatchObject({
      events: before,
      projections: expect.arrayContaining(['test.counter', 'log.latest']),
    });
    // The new snapshots are stored after the event that records their digests.
    expect((await node.project(counter).current()).state).toBe((await node.head()).seq);
    expect(decodeSnapshot(await shared.side.get(`snapshot.${sideKey('test.counter')}`))).toMatchObject({
      seq: before,
      recorded: before + 1,
    });
  });
});

describe('the wait of one call on the log', () => {
  it('is bounded by the timeout over all its appends, not per append', async () => {
    const shared = new MemoryBatchStream();
    const node = shared.node();
    const slow: BatchStream = {
      ...node,
      append: async (payload, id, after) => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        return node.append(payload, id, after);
      },
    };
    const log = open(slow, 600);
    await log.append([requested('warm')]);
    const started = Date.now();
    await log.append([requested('x')]);
    await log.append([
      { type: 'shadow.decided', data: { callId: 'x', rule: 'r', plugin: 'p', decision: 'allow', reason: 'ok' } },
    ]);
    const third = await log.append([completed('x')]).catch((error: unknown) => error);
    expect(codeOf(third)).toBe('LOG_WRITE_FAILED');
    expect((third as Error).message).toMatch(/the call has waited on it for its whole timeout \(0\.6s in all/);
    expect(Date.now() - started).toBeLessThan(900);
    // Another call has a budget of its own.
    await log.append([requested('y')]);
  });
});

describe('derived state beside the stream is evidence too', () => {
  it('a snapshot edited beside the stream, its digest recomputed, is not used: the node folds again, records it, verify names it', async () => {
    const shared = await history(300);
    const key = `snapshot.${sideKey('test.counter')}`;
    const stored = decodeSnapshot(await shared.side.get(key))!;
    const forged = { ...stored, state: serialize(7) };
    await shared.side.put(key, encodeSnapshot({ ...forged, digest: snapshotDigest('test.counter', forged) }));
    const auditor = open(shared.node());
    auditor.project(counter);
    const report = await verifyEventLog(auditor, { views: [counter as Projection<unknown>] });
    expect(report.findings).toEqual([
      expect.objectContaining({
        kind: 'derived',
        where: 'test.counter',
        reason: expect.stringContaining('not vouched for'),
      }),
    ]);
    const node = open(shared.node());
    const [fresh] = await node.append([requested('after')]);
    expect((await node.project(counter).current()).state).toBe(fresh!.seq);
    await node.close();
    const rebuilt = (await all(open(shared.node()))).filter((event) => event.type === 'projection.rebuilt');
    expect(rebuilt.map((event) => event.data)).toEqual([
      expect.objectContaining({
        name: 'test.counter',
        kind: 'projection',
        reason: expect.stringContaining('not the one the log recorded'),
      }),
    ]);
  });
});
