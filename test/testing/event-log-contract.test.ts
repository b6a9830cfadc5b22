import { describe, expect, it } from 'vitest';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import type { AppendOptions, EventLog, ReadRange } from '../../src/events/log.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { eventLogContract } from '../../src/testing/contracts/event-log.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/**
 * The event-log suite on planted logs: the memory log with one method broken. Each break fails the
 * case that checks it (and the memory log itself passes every case, in test/events/event-log.test.ts).
 */

/** The memory log with the methods `broken` gives in place of its own (each may call the real one). */
function planted(broken: (log: MemoryEventLog) => Partial<EventLog>) {
  return {
    async create(): Promise<EventLog> {
      const log = new MemoryEventLog();
      const over = broken(log);
      return new Proxy(log, {
        get: (target, key, receiver) =>
          key in over ? over[key as keyof EventLog] : (Reflect.get(target, key, receiver) as unknown),
      });
    },
  };
}

async function failing(broken: (log: MemoryEventLog) => Partial<EventLog>): Promise<string[]> {
  const outcomes = await runSuite((api) => eventLogContract(api, 'planted', planted(broken)));
  return [...outcomes].filter(([, outcome]) => outcome !== PASSED).map(([name]) => name);
}

const withoutIds = (events: readonly NewEvent[]) => events.map(({ id: _id, ...event }) => event as NewEvent);

describe('the event-log suite on planted logs', () => {
  it('passes the memory log through the proxy, every case', async () => {
    expect(await failing(() => ({}))).toEqual([]);
  });

  it('fails a log that is not idempotent by id', async () => {
    expect(await failing((log) => ({ append: (events, options) => log.append(withoutIds(events), options) }))).toEqual([
      'is idempotent by event id',
    ]);
  });

  it('fails a log that ignores expectedSeq, and one that never lets a stale append decide again', async () => {
    const ignoring = await failing((log) => ({ append: (events) => log.append(events) }));
    expect(ignoring).toEqual(
      expect.arrayContaining([
        'refuses an append whose expected seq is stale, writing nothing',
        'lets a stale conditional append decide again inside the write (onConflict), on the events since',
      ]),
    );
    const undeciding = await failing((log) => ({
      append: (events, options: AppendOptions = {}) => log.append(events, { ...options, onConflict: undefined }),
    }));
    expect(undeciding).toEqual([
      'lets a stale conditional append decide again inside the write (onConflict), on the events since',
    ]);
  });

  it('fails a log whose reads ignore the range, whose readCall finds nothing, or whose subscribers miss the past', async () => {
    const unranged = await failing((log) => ({ read: (_range?: ReadRange) => log.read() }));
    expect(unranged).toContain('reads ranges forwards, backwards and limited');
    expect(await failing(() => ({ readCall: async () => [] as Recorded[] }))).toContain(
      'reads every event of one call and the last event of a type',
    );
    // Only events appended after it subscribed: the memory log hands the past over at once, then goes live.
    const forgetful = await failing((log) => ({
      subscribe: (from, listener) => {
        let live = false;
        const stop = log.subscribe(from, (event) => live && listener(event));
        live = true;
        return stop;
      },
    }));
    expect(forgetful).toEqual(['delivers past and future events to subscribers']);
  });

  it('fails a log without a Merkle tree, one that starts with an event, and one that changes data', async () => {
    expect(await failing(() => ({ tree: undefined }))).toEqual([
      'keeps an RFC 9162 tree over the chain hashes whose proofs an RFC-only verifier accepts',
    ]);
    const seeded = await failing((log) => {
      void log.append([{ type: 'session.opened', data: { sessionId: 's', iface: 'cli' } } as NewEvent]);
      return {};
    });
    expect(seeded).toContain('starts empty with the genesis head');
    const normalising = await failing((log) => ({
      append: (events, options) =>
        log.append(
          events.map((event) => JSON.parse(JSON.stringify(event).normalize('NFD')) as NewEvent),
          options,
        ),
    }));
    expect(normalising).toEqual(['keeps unicode and nested data byte-exact through the hash']);
  });
});
