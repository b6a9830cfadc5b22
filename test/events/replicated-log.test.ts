import { describe, expect, it } from 'vitest';
import type { BatchStream } from '../../src/events/batch-stream.js';
import { encodeBatch } from '../../src/events/batch-stream.js';
import type { Recorded } from '../../src/events/envelope.js';
import { ReplicatedEventLog } from '../../src/events/replicated-log.js';
import { callIdOf } from '../../src/events/append-batch.js';
import { verifyChain } from '../../src/events/verify.js';
import { FactorlyError } from '../../src/base/errors.js';
import { requested } from '../../src/testing/contracts/event-log.js';
import { MemoryBatchStream } from '../helpers/memory-batch-stream.js';

async function all(log: ReplicatedEventLog): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for await (const event of log.read()) out.push(event);
  return out;
}

const codeOf = (error: unknown) => (FactorlyError.isInstance(error) ? error.code : error);

describe('ReplicatedEventLog', () => {
  it('stops at a batch on the stream that does not carry on the chain, and refuses to write after it', async () => {
    const shared = new MemoryBatchStream();
    const log = new ReplicatedEventLog(shared.node());
    const [first] = await log.append([requested('a')]);
    // Another writer, not factorly, puts a batch sealed on genesis again (a fork).
    const forked = { ...first!, id: 'evil', hash: first!.hash };
    await shared.node().append(encodeBatch([JSON.stringify(forked)]), 'evil', 1);
    const reader = new ReplicatedEventLog(shared.node());
    expect((await all(reader)).map((event) => event.seq)).toEqual([1]);
    const error = await reader.append([requested('b')]).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('LOG_CORRUPT');
    expect((error as Error).message).toBe(
      "event 1 in the stream's batch at position 2 has seq 1, expected 2: the log stops before it",
    );
  });

  it('refuses an append the stream does not answer within the timeout, then writes again once it is back', async () => {
    const shared = new MemoryBatchStream();
    const log = new ReplicatedEventLog(shared.node(), { timeoutMs: 300 });
    await log.append([requested('a')]);
    shared.down = true;
    const error = await log.append([requested('b')]).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('LOG_WRITE_FAILED');
    expect((error as Error).message).toMatch(
      /^cannot append to the event log memory\/stream: no quorum \(no answer within 0\.3s: is the stream reachable/,
    );
    shared.down = false;
    await log.append([requested('c')]);
    expect((await all(log)).map((event) => callIdOf(event))).toEqual(['a', 'c']);
  });

  it('returns a batch whose answer was lost as stored once, when it finds it on the stream (beyond any duplicate window)', async () => {
    const shared = new MemoryBatchStream();
    const node = shared.node();
    let lose = 1;
    // The stream stores the batch but the answer is lost, and it keeps no memory of batch ids.
    const forgetful: BatchStream = {
      ...node,
      append: async (payload, _id, after) => {
        const stored = await node.append(payload, `once-${Math.random()}`, after);
        if (lose-- > 0) throw new Error('timeout');
        return stored;
      },
    };
    const log = new ReplicatedEventLog(forgetful, { timeoutMs: 2000 });
    const [event] = await log.append([requested('a')]);
    expect(shared.batches).toHaveLength(1);
    expect((await all(log)).map((e) => e.id)).toEqual([event!.id]);
    expect(await verifyChain(log.read())).toEqual({ ok: true, verified: 1 });
  });

  it('closes the calls of a batch it gave up on that the stream stored after all, at its next write', async () => {
    const shared = new MemoryBatchStream();
    const node = shared.node();
    let silent = true;
    // Stored, but never answered while `silent` (a stream without quorum that commits once it is back).
    const late: BatchStream = {
      ...node,
      append: async (payload, id, after) => {
        if (!silent) return node.append(payload, id, after);
        if (shared.batches.length === 0) await node.append(payload, id, after);
        throw new Error('timeout');
      },
    };
    const log = new ReplicatedEventLog(late, { timeoutMs: 200 });
    expect(codeOf(await log.append([requested('lost')]).catch((e: unknown) => e))).toBe('LOG_WRITE_FAILED');
    silent = false;
    await log.append([requested('next')]);
    expect((await all(log)).map((event) => `${event.type}:${callIdOf(event)}`)).toEqual([
      'call.requested:lost',
      'call.interrupted:lost',
      'call.requested:next',
    ]);
    expect((await log.readCall('lost'))[1]?.data).toMatchObject({
      reason: expect.stringMatching(/^refused before the tool ran/),
    });
  });

  it('decides a conditional append again on what another node wrote first', async () => {
    const shared = new MemoryBatchStream();
    const [a, b] = [new ReplicatedEventLog(shared.node()), new ReplicatedEventLog(shared.node())];
    await b.head();
    await a.append([requested('a')]);
    const seen: number[] = [];
    const [landed] = await b.append([requested('b')], {
      expectedSeq: 0,
      onConflict: (head) => (seen.push(head), [requested('b-again')]),
    });
    expect(seen).toEqual([1]);
    expect(landed).toMatchObject({ seq: 2, data: { callId: 'b-again' } });
  });
});
