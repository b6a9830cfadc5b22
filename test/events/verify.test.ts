import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { fold } from '../../src/events/projection.js';
import { auditProjection } from '../../src/events/projections/audit.js';
import { verifyChain } from '../../src/events/verify.js';
import { hashEnvelope } from '../../src/events/hash.js';
import { FactorlyError } from '../../src/base/errors.js';
import { completed, requested } from '../../src/testing/contracts/event-log.js';

async function chain(): Promise<Recorded[]> {
  const log = new MemoryEventLog();
  for (const id of ['a', 'b', 'c']) await log.append([requested(id), completed(id)]);
  const out: Recorded[] = [];
  for await (const event of log.read()) out.push(event);
  return out;
}

async function* from(events: Recorded[]): AsyncIterable<Recorded> {
  yield* events;
}

describe('verifyChain', () => {
  it('accepts an intact chain', async () => {
    expect(await verifyChain(from(await chain()))).toEqual({ ok: true, verified: 6 });
  });

  it('finds a modified event', async () => {
    const events = await chain();
    events[3] = { ...events[3], data: { ...events[3].data, tool: 'other' } } as Recorded;
    expect((await verifyChain(from(events))).firstBad).toMatchObject({ seq: 4, kind: 'modified' });
  });

  it('finds a deleted event', async () => {
    const events = await chain();
    events.splice(2, 1);
    expect(await verifyChain(from(events))).toMatchObject({
      ok: false,
      verified: 2,
      firstBad: { seq: 3, kind: 'deleted' },
    });
  });

  it('finds reordered events', async () => {
    const events = await chain();
    [events[2], events[3]] = [events[3], events[2]];
    expect((await verifyChain(from(events))).firstBad).toMatchObject({ seq: 3, kind: 'reordered' });
  });

  it('names an event replaced by a self-consistent forgery at its own seq', async () => {
    const events = await chain();
    // An attacker rewrites seq 3 in place with a forged event that hashes correctly: seq 4 then points elsewhere.
    events[2] = rehashed({ ...events[2], id: 'forged' } as Recorded);
    expect(await verifyChain(from(events))).toMatchObject({
      ok: false,
      verified: 2,
      firstBad: { seq: 3, kind: 'modified', reason: expect.stringContaining('event 3 was replaced') },
    });
  });

  it('names an insertion "inserted" at the inserted seq, whether or not the later seqs were renumbered', async () => {
    const events = await chain();
    const forged = rehashed({ ...events[2], id: 'forged', prevHash: events[1].hash } as Recorded);
    // Slipped in before seq 3, the later events keeping their own seqs and hashes.
    const kept = [...events.slice(0, 2), forged, ...events.slice(2)];
    expect(await verifyChain(from(kept))).toMatchObject({
      ok: false,
      verified: 2,
      firstBad: { seq: 3, kind: 'inserted' },
    });
    // The later events renumbered (seq + 1) but not re-hashed: still an insertion, not a modification.
    const renumbered = [
      ...events.slice(0, 2),
      forged,
      ...events.slice(2).map((e) => ({ ...e, seq: e.seq + 1 }) as Recorded),
    ];
    expect(await verifyChain(from(renumbered))).toMatchObject({
      ok: false,
      verified: 2,
      firstBad: { seq: 3, kind: 'inserted' },
    });
  });

  it('reports a modification even when the event after it cannot be read', async () => {
    const events = await chain();
    events[2] = { ...events[2], data: { ...events[2].data, tool: 'other' } } as Recorded;
    async function* unreadableAfter(): AsyncIterable<Recorded> {
      yield* events.slice(0, 3);
      throw new FactorlyError('LOG_CORRUPT', 'event log entry 4 is not valid JSON', { data: { seq: 4 } });
    }
    expect(await verifyChain(unreadableAfter())).toMatchObject({
      ok: false,
      verified: 2,
      firstBad: { seq: 3, kind: 'modified' },
    });
    expect(
      await verifyChain(
        (async function* () {
          yield* (await chain()).slice(0, 3);
          throw new FactorlyError('LOG_CORRUPT', 'bad', { data: { seq: 4 } });
        })(),
      ),
    ).toMatchObject({ verified: 3, firstBad: { seq: 4, kind: 'corrupt' } });
  });
});

function rehashed(event: Recorded): Recorded {
  const { hash: _drop, ...rest } = event;
  return { ...rest, hash: hashEnvelope(rest as Omit<Recorded, 'hash'>) } as Recorded;
}

describe('verifyChain against the recorded head', () => {
  it('reports a truncated tail and a replaced last event', async () => {
    const events = await chain();
    const head = { seq: 6, hash: events[5].hash };
    expect(await verifyChain(from(events.slice(0, 4)), head)).toMatchObject({
      ok: false,
      verified: 4,
      firstBad: { seq: 5, kind: 'truncated' },
    });
    expect(await verifyChain(from(events), { seq: 6, hash: 'f'.repeat(64) })).toMatchObject({
      ok: false,
      firstBad: { seq: 6, kind: 'modified' },
    });
    expect(await verifyChain(from(events), head)).toEqual({ ok: true, verified: 6 });
  });
});

describe('audit projection', () => {
  it('folds a call into one entry with status, duration and the closing hash', async () => {
    const events = await chain();
    const state = fold(events, auditProjection);
    const entries = [...state.order].reverse().map((id) => state.byId.get(id)!);
    expect(entries.map((e) => e.callId)).toEqual(['c', 'b', 'a']);
    expect(entries[0]).toMatchObject({
      tool: 'echo',
      status: 'success',
      exitCode: 0,
      durationMs: 1,
      hash: events[5].hash,
      seq: 6,
    });
  });
});
