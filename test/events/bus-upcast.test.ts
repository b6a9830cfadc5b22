import { describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/bus.js';
import type { Recorded } from '../../src/events/envelope.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { PublishingEventLog } from '../../src/events/publishing-log.js';
import { createUpcast } from '../../src/events/upcast.js';
import { requested } from '../../src/testing/contracts/event-log.js';

describe('event bus', () => {
  it('delivers stored events by type and to onAny, and isolates a throwing listener', async () => {
    const bus = new EventBus();
    const log = new PublishingEventLog(new MemoryEventLog(), bus);
    const byType: number[] = [];
    const any: string[] = [];
    const failures: string[] = [];
    bus.on('call.requested', () => {
      throw new Error('listener bug');
    });
    bus.on('call.requested', (event) => byType.push(event.seq));
    bus.onAny((event) => any.push(event.type));
    bus.onListenerFailed((error, event) => failures.push(`${(error as Error).message}@${event.seq}`));
    const recorded = await log.append([
      requested('a'),
      { type: 'vault.accessed', data: { op: 'list', tier: 'project' } },
    ]);
    expect(recorded.map((e) => e.seq)).toEqual([1, 2]);
    expect(byType).toEqual([1]);
    expect(any).toEqual(['call.requested', 'vault.accessed']);
    expect(failures).toEqual(['listener bug@1']);
  });

  it('stops delivering after unsubscribe and reports async listener failures', async () => {
    const bus = new EventBus();
    const log = new PublishingEventLog(new MemoryEventLog(), bus);
    const seen: number[] = [];
    const failures: string[] = [];
    bus.onListenerFailed((error) => failures.push((error as Error).message));
    const off = bus.onAny((event) => seen.push(event.seq));
    bus.onAny(async () => Promise.reject(new Error('async bug')));
    await log.append([requested('a')]);
    off();
    await log.append([requested('b')]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([1]);
    expect(failures).toEqual(['async bug', 'async bug']);
  });
});

describe('upcasting', () => {
  it('applies each step from the stored version to the newest', () => {
    const upcast = createUpcast({
      'call.requested@1': (data) => ({ ...(data as object), agentId: 'legacy' }),
      'call.requested@2': (data) => ({ ...(data as object), workspace: 'default' }),
    });
    const old = {
      seq: 1,
      id: 'x',
      type: 'call.requested',
      v: 1,
      at: '',
      prevHash: '',
      hash: '',
      data: { callId: 'c' },
    } as unknown as Recorded;
    expect(upcast(old)).toMatchObject({ v: 3, data: { callId: 'c', agentId: 'legacy', workspace: 'default' } });
    expect(old.v).toBe(1);
  });
});
