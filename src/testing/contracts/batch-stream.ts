import type { BatchAppended, BatchStream, StoredBatch } from '../../events/batch-stream.js';
import { afterSuite, assert, within, type TestApi } from '../suite.js';

/** A fresh, empty stream per case; each `node()` is one more node (process, connection) on that same stream. */
export interface BatchStreamFactory {
  create(): Promise<{ node(): BatchStream }>;
}

/** How long a case waits for the stream: an answer, or batches to arrive at a follower. */
const WAIT_MS = 15_000;

const bytes = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/** A follower from `after`, and a way to wait until it has `count` batches. */
function follower(stream: BatchStream, after: number) {
  const batches: StoredBatch[] = [];
  let failure: unknown;
  const waiting = new Set<() => void>();
  const stop = stream.follow(
    after,
    (batch) => {
      batches.push(batch);
      for (const wake of waiting) wake();
    },
    (error) => {
      failure = error;
      for (const wake of waiting) wake();
    },
  );
  const until = (count: number, what: string): Promise<StoredBatch[]> =>
    within(
      new Promise<StoredBatch[]>((resolve, reject) => {
        const check = (): void => {
          if (failure !== undefined) reject(failure as Error);
          else if (batches.length >= count) resolve(batches.slice(0, count));
          else return;
          waiting.delete(check);
        };
        waiting.add(check);
        check();
      }),
      WAIT_MS,
      `${what} (${batches.length} of ${count} batches delivered)`,
    );
  return { batches, until, stop };
}

function stored(answer: BatchAppended, what: string): number {
  assert.ok(!('conflict' in answer), `${what}: answered a conflict on the last position`);
  assert.equal(answer.duplicate, false, `${what}: answered as a duplicate`);
  return answer.position;
}

/**
 * What every `BatchStream` (the transport under `ReplicatedEventLog`) must do: an origin every node
 * shares and an empty start; positions that grow, delivered in order and byte-exact; `after` checked
 * (a batch is stored only after the last position, else `conflict` and nothing stored); an id stored
 * once (sent again, even on a stale `after`, it is answered as the batch stored); `follow` from a
 * position, past and live batches from any node; `last()` asked of the stream, not of a node's copy;
 * and two writers racing on one position, or appending 20 batches each, losing nothing acknowledged;
 * a message read back by position and a range of them, asked of the stream (another node's too); a
 * message of `maxPayload()` bytes taken whole; and the store beside the stream (`side`), when it has
 * one, keeping values of any size by key.
 */
export function batchStreamContract(test: TestApi, name: string, factory: BatchStreamFactory): void {
  const { describe, it } = test;
  const nodes: BatchStream[] = [];
  const ask = <T>(promise: Promise<T>, what: string): Promise<T> => within(promise, WAIT_MS, what);
  const stops: (() => void)[] = [];
  /** `count` nodes on a new stream, each having asked it once (one after the other: a stream may be made on first use). */
  const fresh = async (count = 1): Promise<BatchStream[]> => {
    const stream = await factory.create();
    const made = Array.from({ length: count }, () => stream.node());
    nodes.push(...made);
    for (const [i, node] of made.entries()) assert.equal(await ask(node.last(), `last() on node ${i + 1}`), 0);
    return made;
  };
  const follow = (stream: BatchStream, after: number) => {
    const made = follower(stream, after);
    stops.push(made.stop);
    return made;
  };
  afterSuite(test, async () => {
    for (const stop of stops.splice(0)) stop();
    await Promise.all(nodes.splice(0).map((node) => node.close()));
  });

  describe(`BatchStream contract: ${name}`, () => {
    it('starts empty (last() is 0 on every node), with one origin on every node', async () => {
      const [a, b] = await fresh(2);
      assert.ok(typeof a!.origin === 'string' && a!.origin.trim() !== '', 'origin must be a non-empty string');
      assert.equal(b!.origin, a!.origin, 'two nodes on one stream name it differently');
    });

    it('stores batches after the last position, positions growing, delivered in order and byte-exact', async () => {
      const [stream] = await fresh();
      const payloads = ['[{"a":1}]', '[{"s":"ünï 🚀"}]', `[${'"x",'.repeat(5_000)}"y"]`];
      const positions: number[] = [];
      for (const [i, payload] of payloads.entries()) {
        const after = positions.at(-1) ?? 0;
        positions.push(stored(await ask(stream!.append(bytes(payload), `b${i}`, after), `append ${i}`), `append ${i}`));
        assert.ok(positions.at(-1)! > after, `append ${i}: position ${positions.at(-1)} is not after ${after}`);
      }
      assert.equal(await ask(stream!.last(), 'last()'), positions.at(-1));
      const delivered = await follow(stream!, 0).until(3, 'follow(0)');
      assert.deepEqual(
        delivered.map((batch) => [batch.position, Buffer.from(batch.payload).toString('utf8')]),
        payloads.map((payload, i) => [positions[i], payload]),
      );
    });

    it('refuses a batch whose after is not the last position (stale or ahead), storing nothing', async () => {
      const [stream] = await fresh();
      const first = stored(await ask(stream!.append(bytes('[1]'), 'one', 0), 'first append'), 'first append');
      assert.deepEqual(await ask(stream!.append(bytes('[2]'), 'stale', 0), 'a stale append'), { conflict: true });
      assert.deepEqual(await ask(stream!.append(bytes('[3]'), 'ahead', first + 5), 'an append ahead'), {
        conflict: true,
      });
      assert.equal(await ask(stream!.last(), 'last()'), first, 'a refused batch was stored');
      const second = stored(await ask(stream!.append(bytes('[4]'), 'two', first), 'an append after'), 'append after');
      const delivered = await follow(stream!, 0).until(2, 'follow(0)');
      assert.deepEqual(
        delivered.map((batch) => batch.position),
        [first, second],
      );
    });

    it('stores an id once: sent again (a lost answer), even on a stale after, it is answered as the batch stored', async () => {
      const [stream] = await fresh();
      const position = stored(await ask(stream!.append(bytes('[1]'), 'same-id', 0), 'append'), 'append');
      assert.deepEqual(await ask(stream!.append(bytes('[1]'), 'same-id', 0), 'the same id again'), {
        position,
        duplicate: true,
      });
      assert.equal(await ask(stream!.last(), 'last()'), position, 'the batch was stored twice');
    });

    it('follows from a position: the batches after it, then new ones from another node', async () => {
      const [a, b] = await fresh(2);
      const positions: number[] = [];
      for (let i = 0; i < 4; i += 1)
        positions.push(
          stored(await ask(a!.append(bytes(`[${i}]`), `f${i}`, positions.at(-1) ?? 0), 'append'), 'append'),
        );
      const seen = follow(b!, positions[1]!);
      const past = await seen.until(2, `follow(${positions[1]})`);
      assert.deepEqual(
        past.map((batch) => batch.position),
        positions.slice(2),
      );
      const live = stored(await ask(a!.append(bytes('[4]'), 'f4', positions.at(-1)!), 'append'), 'append');
      const all = await seen.until(3, 'a live batch from another node');
      assert.deepEqual(
        all.map((batch) => batch.position),
        [...positions.slice(2), live],
      );
    });

    it("answers last() from the stream: another node's append is seen at once, and appended after", async () => {
      const [a, b] = await fresh(2);
      const position = stored(await ask(a!.append(bytes('[1]'), 'by-a', 0), 'append on a'), 'append on a');
      assert.equal(await ask(b!.last(), "last() on b after a's append"), position);
      stored(await ask(b!.append(bytes('[2]'), 'by-b', position), 'append on b'), 'append on b');
    });

    it('lets exactly one of two writers racing on one position store its batch', async () => {
      const [a, b] = await fresh(2);
      const answers = await ask(
        Promise.all([a!.append(bytes('["a"]'), 'race-a', 0), b!.append(bytes('["b"]'), 'race-b', 0)]),
        'two appends after 0',
      );
      assert.equal(answers.filter((answer) => 'conflict' in answer).length, 1, JSON.stringify(answers));
      assert.equal(
        await ask(a!.last(), 'last()'),
        (answers.find((answer) => !('conflict' in answer)) as { position: number }).position,
      );
    });

    it("reads a message by position and a range of them from the stream itself (another node's too), byte-exact", async () => {
      const [a, b] = await fresh(2);
      const positions: number[] = [];
      for (let i = 0; i < 12; i += 1)
        positions.push(
          stored(await ask(a!.append(bytes(`[${i}]`), `r${i}`, positions.at(-1) ?? 0), 'append'), 'append'),
        );
      const one = await ask(b!.get(positions[5]!), `get(${positions[5]}) on another node`);
      assert.deepEqual(one && [one.position, Buffer.from(one.payload).toString('utf8')], [positions[5], '[5]']);
      assert.equal(await ask(b!.get(positions.at(-1)! + 1), 'get() past the last'), undefined);
      const range: [number, string][] = [];
      for await (const message of b!.read(positions[2]!, positions[9]!))
        range.push([message.position, Buffer.from(message.payload).toString('utf8')]);
      assert.deepEqual(
        range,
        positions.slice(2, 10).map((position, i) => [position, `[${i + 2}]`]),
      );
      const tail: number[] = [];
      for await (const message of b!.read(positions[10]!, positions.at(-1)! + 5)) tail.push(message.position);
      assert.deepEqual(tail, positions.slice(10), 'a range past the last stops at the last');
    });

    it('takes a message of maxPayload() bytes whole', async () => {
      const [stream] = await fresh();
      const room = await ask(stream!.maxPayload(), 'maxPayload()');
      assert.ok(Number.isSafeInteger(room) && room >= 4096, `maxPayload() is ${room}: a log needs at least 4096`);
      const payload = Buffer.alloc(room, 0x61);
      const position = stored(await ask(stream!.append(payload, 'full', 0), 'a full message'), 'a full message');
      const back = await ask(stream!.get(position), 'get() of the full message');
      assert.ok(back && Buffer.from(back.payload).equals(payload), 'the full message did not come back whole');
    });

    it('keeps values of any size by key beside the stream (side), for every node', async () => {
      const [a, b] = await fresh(2);
      if (!a!.side || !b!.side) return;
      const big = Buffer.alloc(3 * (await ask(a!.maxPayload(), 'maxPayload()')) + 7, 0x62);
      await ask(a!.side.put('snapshot.x', bytes('one')), 'put');
      await ask(a!.side.put('snapshot.x', bytes('two')), 'put again');
      await ask(a!.side.put('call.c1.5', big), 'put a value larger than a message');
      await ask(a!.side.put('call.c1.9', bytes('[9]')), 'put');
      await ask(a!.side.put('call.c10.1', bytes('[1]')), 'put');
      const text = async (key: string) => {
        const value = await ask(b!.side!.get(key), `get(${key}) on another node`);
        return value && Buffer.from(value).toString('utf8');
      };
      assert.equal(await text('snapshot.x'), 'two', 'a value put again replaces the one before');
      assert.ok(Buffer.from((await b!.side.get('call.c1.5'))!).equals(big), 'the large value did not come back whole');
      assert.equal(await text('nope'), undefined);
      assert.deepEqual((await ask(b!.side.keys('call.c1.'), 'keys()')).sort(), ['call.c1.5', 'call.c1.9']);
    });

    it('keeps every acknowledged batch of two writers appending 20 each, once, in position order', async () => {
      const [a, b, reader] = await fresh(3);
      const acknowledged = new Map<string, number>();
      const write = async (node: BatchStream, writer: string): Promise<void> => {
        for (let i = 0; i < 20; i += 1) {
          const id = `${writer}-${i}`;
          for (let attempt = 1; ; attempt += 1) {
            assert.ok(attempt <= 200, `${id}: still in conflict after 200 attempts (is last() a stale copy?)`);
            const answer = await node.append(bytes(JSON.stringify([id])), id, await node.last());
            if ('conflict' in answer) continue;
            acknowledged.set(id, answer.position);
            break;
          }
        }
      };
      await ask(Promise.all([write(a!, 'a'), write(b!, 'b')]), 'two writers appending 20 batches each');
      assert.equal(new Set(acknowledged.values()).size, 40, 'two acknowledged batches share a position');
      const delivered = await follow(reader!, 0).until(40, 'follow(0) on a third node');
      const byPosition = [...acknowledged].sort(([, x], [, y]) => x - y);
      assert.deepEqual(
        delivered.map((batch) => [JSON.parse(Buffer.from(batch.payload).toString('utf8'))[0], batch.position]),
        byPosition,
      );
      assert.equal(await ask(reader!.last(), 'last()'), byPosition.at(-1)![1]);
    });
  });
}
