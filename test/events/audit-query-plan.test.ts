import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentCalls, type AuditFilter } from '../../src/events/audit-query.js';
import { searchCalls } from '../../src/events/call-search.js';
import { registerAuditViews } from '../../src/events/audit-views.js';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import { ifaceIndex } from '../../src/events/event-index.js';
import { DelegatingEventLog } from '../../src/events/delegating-log.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import type { EventLog, ReadRange } from '../../src/events/log.js';

const CALLS = 2000;
const START = Date.parse('2026-01-01T00:00:00Z');
/** Call i is requested at START + i s; every 400th call is still running (a writer recorded it). */
function call(i: number): NewEvent[] {
  const callId = `call-${i}`;
  const requested: NewEvent = {
    type: 'call.requested',
    data: {
      callId,
      rootId: callId,
      tool: `tool.${i % 5}`,
      params: { i },
      iface: i % 4 === 0 ? 'cli' : 'mcp',
      agentId: `agent-${i % 3}`,
      ...(i % 400 === 7 ? { writer: 'writer-a' } : {}),
    },
  };
  if (i % 400 === 7) return [requested];
  const status = i % 7 === 0 ? 'error' : 'success';
  const completed: NewEvent = {
    type: 'call.completed',
    data: {
      callId,
      status,
      exitCode: status === 'error' ? 1 : 0,
      output: { text: '', bytes: 0, sha256: 'x', truncated: false },
      durationMs: 1,
    },
  };
  return [requested, completed];
}

/** Counts the events a query is made to read one by one (`read`), and the calls it reads whole. */
function counting(inner: EventLog): { log: EventLog; reads: () => number } {
  let reads = 0;
  const log = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'readCall')
        return async (callId: string) => {
          reads += 1;
          return target.readCall(callId);
        };
      if (key !== 'read') return Reflect.get(target, key, receiver);
      return async function* (range?: ReadRange): AsyncIterable<Recorded> {
        for await (const event of target.read(range)) {
          reads += 1;
          yield event;
        }
      };
    },
  }) as EventLog;
  return { log, reads: () => reads };
}

let dir: string;
let log: LmdbEventLog;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'factorly-audit-plan-'));
  let clock = START;
  const writer = new LmdbEventLog({
    path: join(dir, 'events.lmdb'),
    durability: 'commit',
    clock: () => new Date(clock),
  });
  registerAuditViews(writer);
  for (let i = 0; i < CALLS; i += 1) {
    clock = START + i * 1000;
    await writer.append(call(i));
  }
  await writer.close();
  log = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
  registerAuditViews(log);
});
afterAll(async () => {
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = (s: number): Date => new Date(START + s * 1000);
const ids = (entries: { callId: string }[]): string[] => entries.map((entry) => entry.callId);

describe('every history filter from what the log keeps', () => {
  it('lists running calls from what is in flight, reading only those calls', async () => {
    const { log: view, reads } = counting(log);
    const running = await recentCalls(view, { status: 'running' }, 100);
    expect(ids(running)).toEqual(['call-7', 'call-407', 'call-807', 'call-1207', 'call-1607']);
    expect(reads()).toBeLessThan(20);
    // With another filter and a window, checked on each.
    expect(ids(await recentCalls(log, { status: 'running', agent: 'agent-1', until: { time: at(1000) } }, 10))).toEqual(
      ['call-7'],
    );
  });

  it('finds running calls in the events of a log that keeps nothing in flight, wrapped or not', async () => {
    const memory = new MemoryEventLog();
    await memory.append([...call(1), ...call(7)]);
    for (const view of [memory, new DelegatingEventLog(memory)])
      expect(ids(await recentCalls(view, { status: 'running' }, 10))).toEqual(['call-7']);
  });

  it('indexes calls by interface and reads only the calls it names', async () => {
    expect(ifaceIndex.keys({ type: 'call.requested', data: { iface: 'code' } } as Recorded)).toEqual(['code']);
    const { log: view, reads } = counting(log);
    const found = await recentCalls(view, { iface: 'cli' }, 20);
    expect(found.every((entry) => entry.iface === 'cli')).toBe(true);
    expect(ids(found).at(-1)).toBe('call-1996');
    expect(reads()).toBeLessThan(60);
  });

  it('starts a page deep in the log where its time falls, not at the head', async () => {
    const until = { time: at(300.5) };
    const { log: view, reads } = counting(log);
    const page = await recentCalls(view, { until }, 10);
    expect(ids(page)).toEqual(Array.from({ length: 10 }, (_, k) => `call-${291 + k}`));
    // A binary search (about 12 reads) and the events of the seek's slack, never the 3,700 above.
    expect(reads()).toBeLessThan(1_300);
    const errors = await recentCalls(view, { status: 'error', until, since: { time: at(200) } }, 100);
    expect(ids(errors)).toEqual(range(203, 301, 7).map((i) => `call-${i}`));
  });

  it('gives a call that ended after the window its own status, not "running"', async () => {
    const [requested] = (await log.readCall('call-100')).filter((event) => event.type === 'call.requested');
    // The window ends at the call's request: its completion is past it.
    const [entry] = await recentCalls(log, { until: { seq: requested.seq } }, 1);
    expect(entry).toMatchObject({ callId: 'call-100', status: 'success' });
  });

  it('combines filters by walking one index and checking the others', async () => {
    const filter: AuditFilter = { tool: 'tool.3', status: 'error', iface: 'mcp', since: { time: at(1000) } };
    const found = await recentCalls(log, filter, 100);
    const expected = range(1000, CALLS, 1).filter((i) => i % 5 === 3 && i % 7 === 0 && i % 4 !== 0 && i % 400 !== 7);
    expect(ids(found)).toEqual(expected.map((i) => `call-${i}`));
  });
});

describe('searching calls', () => {
  it('finds a call by id exactly, by hash prefix or text among the newest calls, and says how far it read', async () => {
    expect(await searchCalls(log, 'call-3', { limit: 10 })).toMatchObject({
      by: 'id',
      entries: [{ callId: 'call-3' }],
    });
    const [closing] = (await log.readCall('call-1990')).slice(-1);
    const byHash = await searchCalls(log, closing.hash.slice(0, 8).toUpperCase(), { limit: 10 });
    expect(ids(byHash.entries)).toContain('call-1990');
    expect(byHash).toMatchObject({ by: 'scan', complete: true, scanned: CALLS });
    // Text beyond the newest calls it may read is not found, and the answer says so.
    const bounded = await searchCalls(log, '"i":5}', { limit: 10, scanCalls: 100 });
    expect(bounded).toMatchObject({ entries: [], complete: false, scanned: 100, more: false });
    const text = await searchCalls(log, '"i":1995}', { limit: 10, scanCalls: 100, filter: { iface: 'mcp' } });
    expect(ids(text.entries)).toEqual(['call-1995']);
    const windowed = await searchCalls(log, 'tool.4', { limit: 50, filter: { since: { time: at(1990) } } });
    expect(ids(windowed.entries)).toEqual(['call-1994', 'call-1999']);
    const many = await searchCalls(log, 'tool.4', { limit: 3 });
    expect(many).toMatchObject({ more: true, complete: false });
    expect(ids(many.entries)).toEqual(['call-1989', 'call-1994', 'call-1999']);
  });
});

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i += step) out.push(i);
  return out;
}
