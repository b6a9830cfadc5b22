import { afterEach, describe, expect, it } from 'vitest';
import { callIdOf, type EventLog, verifyChain } from 'factorly/events';
import { FactorlyError } from 'factorly';
import { eventLogContract, requested } from 'factorly/testing';
import { closeAll, freshStream, natsLog } from './open-nats.js';

const opened: EventLog[] = [];
afterEach(() => closeAll(opened));

function open(stream: string): EventLog {
  const log = natsLog(stream);
  opened.push(log);
  return log;
}

eventLogContract({ describe, it }, 'nats (3-server JetStream cluster)', {
  async create() {
    return open(freshStream());
  },
});

describe('the nats log shared by several nodes', () => {
  it('never forks the chain when two nodes append at once: each one seals again on the head the other left', async () => {
    const stream = freshStream();
    const [a, b] = [open(stream), open(stream)];
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).append([requested(`c${i}`)])));
    const events = [];
    for await (const event of open(stream).read()) events.push(event);
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(events.map((event) => callIdOf(event))).size).toBe(20);
    expect(await verifyChain(open(stream).read())).toEqual({ ok: true, verified: 20 });
  });

  it('refuses a conditional append on a head another node moved, and lets the conflict handler decide on the events since', async () => {
    const stream = freshStream();
    const [a, b] = [open(stream), open(stream)];
    await a.append([requested('first')]);
    await b.head();
    await a.append([requested('second')]);
    const stale = await b.append([requested('late')], { expectedSeq: 1 }).catch((error: unknown) => error);
    expect(FactorlyError.isInstance(stale) && stale.code).toBe('LOG_CONFLICT');
    const seen: number[] = [];
    const [landed] = await b.append([requested('stale')], {
      expectedSeq: 1,
      onConflict: (head, readFrom) => (seen.push(head, ...readFrom(2).map((event) => event.seq)), [requested('again')]),
    });
    expect(seen).toEqual([2, 2]);
    expect(landed).toMatchObject({ seq: 3, data: { callId: 'again' } });
  });

  it('answers an event id stored by another node as recorded, not again', async () => {
    const stream = freshStream();
    const [a, b] = [open(stream), open(stream)];
    const [first] = await a.append([{ ...requested('x'), id: 'evt-shared' }]);
    const [again] = await b.append([{ ...requested('x'), id: 'evt-shared' }]);
    expect(again).toEqual(first);
    expect((await b.head()).seq).toBe(1);
  });
});
