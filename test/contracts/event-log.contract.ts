import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../src/events/log.js';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import { GENESIS_HASH } from '../../src/events/envelope.js';
import { EVENT_VERSIONS } from '../../src/events/catalog.js';
import { verifyChain } from '../../src/events/verify.js';
import { FactorlyError } from '../../src/kernel/base/errors.js';
import { rfcLeafHash, rfcRoot, rfcVerifyConsistency, rfcVerifyInclusion } from '../helpers/rfc9162.js';

/** A fresh, empty log per test; `dispose` removes whatever it left behind. */
export interface LogFactory {
  create(): Promise<EventLog>;
}

export function requested(callId: string, tool = 'echo'): NewEvent {
  return { type: 'call.requested', data: { callId, rootId: callId, tool, params: { n: 1 }, iface: 'cli' } };
}

export function completed(callId: string): NewEvent {
  return {
    type: 'call.completed',
    data: { callId, status: 'success', exitCode: 0, output: { text: 'ok', bytes: 2, sha256: 'x', truncated: false }, durationMs: 1 },
  };
}

async function all(log: EventLog, range = {}): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for await (const event of log.read(range)) out.push(event);
  return out;
}

/** The behaviour every `EventLog` implementation must have. */
export function testEventLog(name: string, factory: LogFactory): void {
  describe(`EventLog contract: ${name}`, () => {
    it('starts empty with the genesis head', async () => {
      const log = await factory.create();
      expect(await log.head()).toEqual({ seq: 0, hash: GENESIS_HASH });
      expect(await all(log)).toEqual([]);
    });

    it('assigns consecutive seqs from 1 and chains hashes', async () => {
      const log = await factory.create();
      const [a, b] = await log.append([requested('c1'), completed('c1')]);
      const [c] = await log.append([requested('c2')]);
      expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
      expect(a.prevHash).toBe(GENESIS_HASH);
      expect(b.prevHash).toBe(a.hash);
      expect(c.prevHash).toBe(b.hash);
      expect(a.v).toBe(EVENT_VERSIONS['call.requested']);
      expect(await log.head()).toEqual({ seq: 3, hash: c.hash });
      expect(await verifyChain(log.read())).toEqual({ ok: true, verified: 3 });
    });

    it('reads ranges forwards, backwards and limited', async () => {
      const log = await factory.create();
      for (let i = 1; i <= 5; i += 1) await log.append([requested(`c${i}`)]);
      expect((await all(log, { from: 2, to: 4 })).map((e) => e.seq)).toEqual([2, 3, 4]);
      expect((await all(log, { reverse: true, limit: 2 })).map((e) => e.seq)).toEqual([5, 4]);
      expect((await all(log, { from: 4 })).map((e) => e.seq)).toEqual([4, 5]);
      expect((await all(log, { to: 2, reverse: true })).map((e) => e.seq)).toEqual([2, 1]);
    });

    it('reads every event of one call and the last event of a type', async () => {
      const log = await factory.create();
      await log.append([requested('a'), requested('b'), completed('a'), completed('b')]);
      expect((await log.readCall('a')).map((e) => e.seq)).toEqual([1, 3]);
      expect((await log.readCall('nope'))).toEqual([]);
      expect((await log.lastOf('call.completed'))?.seq).toBe(4);
      expect(await log.lastOf('tool.promoted')).toBeUndefined();
    });

    it('is idempotent by event id', async () => {
      const log = await factory.create();
      const first = await log.append([{ ...requested('a'), id: 'evt-1' }]);
      const again = await log.append([{ ...requested('a'), id: 'evt-1' }, { ...completed('a'), id: 'evt-2' }]);
      expect(again[0]).toEqual(first[0]);
      expect(again[1].seq).toBe(2);
      expect((await log.head()).seq).toBe(2);
    });

    it('refuses an append whose expected seq is stale, writing nothing', async () => {
      const log = await factory.create();
      await log.append([requested('a')], { expectedSeq: 0 });
      const error = await log.append([requested('b')], { expectedSeq: 0 }).catch((e: unknown) => e);
      expect(FactorlyError.isInstance(error) && error.code).toBe('LOG_CONFLICT');
      expect((await log.head()).seq).toBe(1);
      await log.append([requested('b')], { expectedSeq: 1 });
      expect((await log.head()).seq).toBe(2);
    });

    it('lets a stale conditional append decide again inside the write (rebase), on the events since', async () => {
      const log = await factory.create();
      await log.append([requested('a'), requested('b')]);
      const asked: { head: number; since: number[] }[] = [];
      const [landed] = await log.append([requested('stale')], {
        expectedSeq: 1,
        rebase: (head, readFrom) => {
          asked.push({ head, since: readFrom(2).map((e) => e.seq) });
          return [requested('decided-again')];
        },
      });
      expect(asked).toEqual([{ head: 2, since: [2] }]);
      expect(landed).toMatchObject({ seq: 3, data: { callId: 'decided-again' } });
      expect((await log.readCall('stale'))).toEqual([]);
      expect((await verifyChain(log.read())).ok).toBe(true);
    });

    it('refuses a stale append whose rebase declines, and never asks a rebase when the log has not moved', async () => {
      const log = await factory.create();
      await log.append([requested('a')]);
      const error = await log.append([requested('b')], { expectedSeq: 0, rebase: () => undefined }).catch((e: unknown) => e);
      expect(FactorlyError.isInstance(error) && error.code).toBe('LOG_CONFLICT');
      expect((await log.head()).seq).toBe(1);
      let asked = 0;
      await log.append([requested('c')], { expectedSeq: 1, rebase: () => { asked += 1; return []; } });
      expect(asked).toBe(0);
      expect((await log.readCall('c'))[0]?.seq).toBe(2);
    });

    it('delivers past and future events to subscribers', async () => {
      const log = await factory.create();
      await log.append([requested('a'), requested('b')]);
      const seen: number[] = [];
      const stop = log.subscribe(2, (event) => seen.push(event.seq));
      await log.append([requested('c')]);
      await expect.poll(() => seen, { timeout: 2000 }).toEqual([2, 3]);
      stop();
      await log.append([requested('d')]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(seen).toEqual([2, 3]);
    });

    it('keeps an RFC 9162 tree over the chain hashes whose proofs an RFC-only verifier accepts', async () => {
      const log = await factory.create();
      expect(log.tree).toBeDefined();
      expect((await log.tree!()).size).toBe(0);
      for (let i = 0; i < 13; i += 1) await log.append(i % 3 === 0 ? [requested(`t${i}`), completed(`t${i}`)] : [requested(`t${i}`)]);
      const leaves = (await all(log)).map((event) => Buffer.from(event.hash, 'hex'));
      const tree = await log.tree!();
      expect(tree.size).toBe(leaves.length);
      expect(tree.origin).toMatch(/^[^\s+]+$/);
      for (let n = 1; n <= leaves.length; n += 1) {
        const root = rfcRoot(leaves.slice(0, n));
        expect(tree.root(n).equals(root)).toBe(true);
        for (const index of new Set([0, n >> 1, n - 1])) {
          expect(rfcVerifyInclusion(index, n, rfcLeafHash(leaves[index]!), tree.inclusionProof(index, n), root)).toBe(true);
        }
        expect(rfcVerifyConsistency(n, leaves.length, root, tree.root(), tree.consistencyProof(n))).toBe(true);
      }
      expect(() => tree.root(leaves.length + 1)).toThrow(RangeError);
    });

    it('keeps unicode and nested data byte-exact through the hash', async () => {
      const log = await factory.create();
      const data = { callId: 'u', rootId: 'u', tool: 'é.tool', params: { s: 'ünï 🚀', nested: { b: [1, 'x'], a: null } }, iface: 'cli' };
      await log.append([{ type: 'call.requested', data }]);
      const [event] = await all(log);
      expect(event.data).toEqual(data);
      expect((await verifyChain(log.read())).ok).toBe(true);
    });
  });
}
