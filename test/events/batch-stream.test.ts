import { afterAll, describe, expect, it } from 'vitest';
import type { BatchStream, StoredBatch } from '../../src/events/batch-stream.js';
import { batchStreamContract, type BatchStreamFactory } from '../../src/testing/contracts/batch-stream.js';
import { MemoryBatchStream } from '../helpers/memory-batch-stream.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

batchStreamContract({ describe, it, afterAll }, 'memory', {
  async create() {
    const stream = new MemoryBatchStream();
    return { node: () => stream.node() };
  },
});

/** The memory stream with one node method broken (given the shared stream and the node it replaces). */
function broken(
  breakNode: (node: BatchStream, stream: MemoryBatchStream) => Partial<BatchStream>,
  maxPayload?: number,
): BatchStreamFactory {
  return {
    async create() {
      const stream = new MemoryBatchStream(maxPayload);
      return {
        node: () => {
          const node = stream.node();
          return { ...node, ...breakNode(node, stream) };
        },
      };
    },
  };
}

const run = (factory: BatchStreamFactory) => runSuite((api) => batchStreamContract(api, 'planted', factory));
const failed = (outcomes: Map<string, string>) =>
  [...outcomes].filter(([, outcome]) => outcome !== PASSED).map(([name]) => name);

const AFTER = 'refuses a batch whose after is not the last position (stale or ahead), storing nothing';
const RACE = 'lets exactly one of two writers racing on one position store its batch';
const ONCE = 'stores an id once: sent again (a lost answer), even on a stale after, it is answered as the batch stored';
const FOLLOW = 'follows from a position: the batches after it, then new ones from another node';
const LAST = "answers last() from the stream: another node's append is seen at once, and appended after";
const TWO_WRITERS = 'keeps every acknowledged batch of two writers appending 20 each, once, in position order';
const ORDER = 'stores batches after the last position, positions growing, delivered in order and byte-exact';
const ORIGIN = 'starts empty (last() is 0 on every node), with one origin on every node';
const READ = "reads a message by position and a range of them from the stream itself (another node's too), byte-exact";
const FULL = 'takes a message of maxPayload() bytes whole';

describe('the BatchStream suite on planted transports', () => {
  it('fails a transport that ignores after (it passed eventLogContract), on the cases that check it', async () => {
    const outcomes = await run(
      broken((node, stream) => ({
        append: async (payload, id) => node.append(payload, id, stream.batches.at(-1)?.position ?? 0),
      })),
    );
    expect(failed(outcomes)).toEqual([AFTER, RACE]);
    expect(outcomes.get(AFTER)).toMatch(/Expected values to be strictly deep-equal/);
  });

  it('fails a transport that stores an id again', async () => {
    let n = 0;
    const outcomes = await run(
      broken((node) => ({ append: (payload, id, after) => node.append(payload, `${id}#${(n += 1)}`, after) })),
    );
    expect(failed(outcomes)).toContain(ONCE);
  });

  it('fails a transport whose follow ignores the position it follows from', async () => {
    const outcomes = await run(
      broken((node) => ({ follow: (_after, deliver, failure) => node.follow(0, deliver, failure) })),
    );
    expect(failed(outcomes)).toEqual([FOLLOW]);
  });

  it("fails a transport whose last() is a node's own copy, naming the two-writer case's endless conflicts", async () => {
    const outcomes = await run(
      broken((node) => {
        let mine = 0;
        return {
          last: async () => mine,
          append: async (payload, id, after) => {
            const answer = await node.append(payload, id, after);
            if (!('conflict' in answer)) mine = answer.position;
            return answer;
          },
        };
      }),
    );
    expect(failed(outcomes)).toEqual([LAST, TWO_WRITERS]);
    expect(outcomes.get(TWO_WRITERS)).toMatch(/still in conflict after 200 attempts \(is last\(\) a stale copy\?\)/);
  });

  it('fails a transport that changes payloads, delivers out of order, or names the stream per node', async () => {
    const mangled = await run(
      broken((node) => ({ append: (payload, id, after) => node.append(Buffer.from(payload).subarray(1), id, after) })),
    );
    expect(failed(mangled)).toContain(ORDER);
    // The first two batches swapped, the rest as they come.
    const shuffled = await run(
      broken((node) => ({
        follow: (after, deliver, failure) => {
          let first: Parameters<typeof deliver>[0] | undefined;
          let seen = 0;
          return node.follow(
            after,
            (batch) => {
              seen += 1;
              if (seen === 1) return void (first = batch);
              deliver(batch);
              if (seen === 2) deliver(first!);
            },
            failure,
          );
        },
      })),
    );
    expect(failed(shuffled)).toContain(ORDER);
    let n = 0;
    const named = await run(broken(() => ({ origin: `memory/${(n += 1)}` })));
    expect(failed(named)).toEqual([ORIGIN]);
  });

  it('fails a transport whose get() and read() answer from what the node wrote itself, not from the stream', async () => {
    const outcomes = await run(
      broken((node) => {
        const mine = new Map<number, StoredBatch>();
        return {
          append: async (payload, id, after) => {
            const answer = await node.append(payload, id, after);
            if (!('conflict' in answer)) mine.set(answer.position, { position: answer.position, payload });
            return answer;
          },
          get: async (position) => mine.get(position),
          read: async function* (from, to) {
            for (const [position, message] of mine) if (position >= from && position <= to) yield message;
          },
        };
      }),
    );
    expect(failed(outcomes)).toEqual([READ]);
  });

  it('fails a transport that claims more room in a message than it takes', async () => {
    const outcomes = await run(broken(() => ({ maxPayload: async () => 65_536 }), 32_768));
    expect(failed(outcomes)).toEqual([FULL]);
  });
});
