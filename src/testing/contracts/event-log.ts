import type { EventLog } from '../../events/log.js';
import type { NewEvent, Recorded } from '../../events/envelope.js';
import { GENESIS_HASH } from '../../events/envelope.js';
import { EVENT_VERSIONS } from '../../events/catalog.js';
import { verifyChain } from '../../events/verify.js';
import { FactorlyError } from '../../base/errors.js';
import { rfcLeafHash, rfcRoot, rfcVerifyConsistency, rfcVerifyInclusion } from '../rfc9162.js';
import { assert, eventually, like, type TestApi } from '../suite.js';

/** A fresh, empty log per test; `dispose` removes whatever it left behind. */
export interface LogFactory {
  create(): Promise<EventLog>;
}

export function requested(callId: string, tool = 'echo'): NewEvent<'call.requested'> {
  return { type: 'call.requested', data: { callId, rootId: callId, tool, params: { n: 1 }, iface: 'cli' } };
}

export function completed(callId: string): NewEvent<'call.completed'> {
  return {
    type: 'call.completed',
    data: {
      callId,
      status: 'success',
      exitCode: 0,
      output: { text: 'ok', bytes: 2, sha256: 'x', truncated: false },
      durationMs: 1,
    },
  };
}

async function all(log: EventLog, range = {}): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for await (const event of log.read(range)) out.push(event);
  return out;
}

/**
 * What every `EventLog` must do (the LMDB log, the in-memory one, a log on another store): seqs from
 * 1 without gaps, a hash chain `verifyChain` accepts, ranges both ways, idempotent appends by id, a
 * conditional append (`expectedSeq`) that writes nothing when stale or decides again inside the
 * write (`onConflict`), subscriptions that see past and future events, and data kept byte-exact.
 */
export function eventLogContract(test: TestApi, name: string, factory: LogFactory): void {
  const { describe, it } = test;
  describe(`EventLog contract: ${name}`, () => {
    it('starts empty with the genesis head', async () => {
      const log = await factory.create();
      assert.deepEqual(await log.head(), { seq: 0, hash: GENESIS_HASH });
      assert.deepEqual(await all(log), []);
    });

    it('assigns consecutive seqs from 1 and chains hashes', async () => {
      const log = await factory.create();
      const [a, b] = await log.append([requested('c1'), completed('c1')]);
      const [c] = await log.append([requested('c2')]);
      assert.deepEqual([a.seq, b.seq, c.seq], [1, 2, 3]);
      assert.equal(a.prevHash, GENESIS_HASH);
      assert.equal(b.prevHash, a.hash);
      assert.equal(c.prevHash, b.hash);
      assert.equal(a.v, EVENT_VERSIONS['call.requested']);
      assert.deepEqual(await log.head(), { seq: 3, hash: c.hash });
      assert.deepEqual(await verifyChain(log.read()), { ok: true, verified: 3 });
    });

    it('reads ranges forwards, backwards and limited', async () => {
      const log = await factory.create();
      for (let i = 1; i <= 5; i += 1) await log.append([requested(`c${i}`)]);
      assert.deepEqual(
        (await all(log, { from: 2, to: 4 })).map((e) => e.seq),
        [2, 3, 4],
      );
      assert.deepEqual(
        (await all(log, { reverse: true, limit: 2 })).map((e) => e.seq),
        [5, 4],
      );
      assert.deepEqual(
        (await all(log, { from: 4 })).map((e) => e.seq),
        [4, 5],
      );
      assert.deepEqual(
        (await all(log, { to: 2, reverse: true })).map((e) => e.seq),
        [2, 1],
      );
    });

    it('reads every event of one call and the last event of a type', async () => {
      const log = await factory.create();
      await log.append([requested('a'), requested('b'), completed('a'), completed('b')]);
      assert.deepEqual(
        (await log.readCall('a')).map((e) => e.seq),
        [1, 3],
      );
      assert.deepEqual(await log.readCall('nope'), []);
      assert.equal((await log.lastOf('call.completed'))?.seq, 4);
      assert.equal(await log.lastOf('tool.promoted'), undefined);
    });

    it('is idempotent by event id', async () => {
      const log = await factory.create();
      const first = await log.append([{ ...requested('a'), id: 'evt-1' }]);
      const again = await log.append([
        { ...requested('a'), id: 'evt-1' },
        { ...completed('a'), id: 'evt-2' },
      ]);
      assert.deepEqual(again[0], first[0]);
      assert.equal(again[1].seq, 2);
      assert.equal((await log.head()).seq, 2);
    });

    it('refuses an append whose expected seq is stale, writing nothing', async () => {
      const log = await factory.create();
      await log.append([requested('a')], { expectedSeq: 0 });
      const error = await log.append([requested('b')], { expectedSeq: 0 }).catch((e: unknown) => e);
      assert.equal(FactorlyError.isInstance(error) && error.code, 'LOG_CONFLICT');
      assert.equal((await log.head()).seq, 1);
      await log.append([requested('b')], { expectedSeq: 1 });
      assert.equal((await log.head()).seq, 2);
    });

    it('lets a stale conditional append decide again inside the write (onConflict), on the events since', async () => {
      const log = await factory.create();
      await log.append([requested('a'), requested('b')]);
      const asked: { head: number; since: number[] }[] = [];
      const [landed] = await log.append([requested('stale')], {
        expectedSeq: 1,
        onConflict: (head, readFrom) => {
          asked.push({ head, since: readFrom(2).map((e) => e.seq) });
          return [requested('decided-again')];
        },
      });
      assert.deepEqual(asked, [{ head: 2, since: [2] }]);
      like(landed, { seq: 3, data: { callId: 'decided-again' } });
      assert.deepEqual(await log.readCall('stale'), []);
      assert.equal((await verifyChain(log.read())).ok, true);
    });

    it('refuses a stale append whose conflict handler declines, and never asks the conflict handler when the log has not moved', async () => {
      const log = await factory.create();
      await log.append([requested('a')]);
      const error = await log
        .append([requested('b')], { expectedSeq: 0, onConflict: () => undefined })
        .catch((e: unknown) => e);
      assert.equal(FactorlyError.isInstance(error) && error.code, 'LOG_CONFLICT');
      assert.equal((await log.head()).seq, 1);
      let asked = 0;
      await log.append([requested('c')], {
        expectedSeq: 1,
        onConflict: () => {
          asked += 1;
          return [];
        },
      });
      assert.equal(asked, 0);
      assert.equal((await log.readCall('c'))[0]?.seq, 2);
    });

    it('delivers past and future events to subscribers', async () => {
      const log = await factory.create();
      await log.append([requested('a'), requested('b')]);
      const seen: number[] = [];
      const stop = log.subscribe(2, (event) => seen.push(event.seq));
      await log.append([requested('c')]);
      await eventually(() => assert.deepEqual(seen, [2, 3]), 2000);
      stop();
      await log.append([requested('d')]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.deepEqual(seen, [2, 3]);
    });

    it('keeps an RFC 9162 tree over the chain hashes whose proofs an RFC-only verifier accepts', async () => {
      const log = await factory.create();
      assert.ok(log.tree, 'the log keeps a Merkle tree (EventLog.tree)');
      assert.equal((await log.tree()).size, 0);
      for (let i = 0; i < 13; i += 1)
        await log.append(i % 3 === 0 ? [requested(`t${i}`), completed(`t${i}`)] : [requested(`t${i}`)]);
      const leaves = (await all(log)).map((event) => Buffer.from(event.hash, 'hex'));
      const tree = await log.tree();
      assert.equal(tree.size, leaves.length);
      assert.match(tree.origin, /^[^\s+]+$/);
      for (let n = 1; n <= leaves.length; n += 1) {
        const root = rfcRoot(leaves.slice(0, n));
        assert.ok(tree.root(n).equals(root), `the root of the first ${n} leaves`);
        for (const index of new Set([0, n >> 1, n - 1])) {
          assert.ok(
            rfcVerifyInclusion(index, n, rfcLeafHash(leaves[index]!), tree.inclusionProof(index, n), root),
            `inclusion of leaf ${index} in ${n}`,
          );
        }
        assert.ok(
          rfcVerifyConsistency(n, leaves.length, root, tree.root(), tree.consistencyProof(n)),
          `consistency of ${n} with ${leaves.length}`,
        );
      }
      assert.throws(() => tree.root(leaves.length + 1), RangeError);
    });

    it('keeps unicode and nested data byte-exact through the hash', async () => {
      const log = await factory.create();
      const data = {
        callId: 'u',
        rootId: 'u',
        tool: 'é.tool',
        params: { s: 'ünï 🚀', nested: { b: [1, 'x'], a: null } },
        iface: 'cli',
      };
      await log.append([{ type: 'call.requested', data }]);
      const [event] = await all(log);
      assert.deepEqual(event.data, data);
      assert.equal((await verifyChain(log.read())).ok, true);
    });
  });
}
