import { describe, expect, it } from 'vitest';
import type { JsonValue, Params } from '../../src/events/catalog.js';
import type { NewEvent } from '../../src/events/envelope.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { fold } from '../../src/events/projection.js';
import { auditProjection } from '../../src/events/projections/audit.js';

const requested = (params: Params): NewEvent => ({
  type: 'call.requested',
  data: { callId: 'c1', rootId: 'c1', tool: 't', params, iface: 'cli' },
});
const decided = (rule: string, facts?: Record<string, JsonValue>): NewEvent => ({
  type: 'shadow.decided',
  data: { callId: 'c1', rule, plugin: 'p', decision: 'allow', reason: 'r', facts },
});

async function entryAfter(events: NewEvent[]) {
  const log = new MemoryEventLog();
  await log.append(events);
  const recorded = [];
  for await (const event of log.read()) recorded.push(event);
  return fold(recorded, auditProjection).byId.get('c1')!;
}

describe('highlighted params in the audit view', () => {
  it('takes the named params from the params as recorded, and only those the call has', async () => {
    const entry = await entryAfter([
      requested({ q: 'octocat', page: 2, token: '{{vault:K}}' }),
      decided('log-params', { highlight: ['page', 'missing', 'q'] }),
    ]);
    expect(entry.highlightParams).toEqual({ page: 2, q: 'octocat' });
  });

  it('adds up the highlights of several decisions', async () => {
    const entry = await entryAfter([
      requested({ a: '1', b: '2' }),
      decided('one', { highlight: ['a'] }),
      decided('two', { highlight: ['b', 'a'] }),
    ]);
    expect(entry.highlightParams).toEqual({ a: '1', b: '2' });
  });

  it('ignores facts that are not a list of names, and decisions without the fact', async () => {
    const kinds: (Record<string, JsonValue> | undefined)[] = [
      undefined,
      { bucket: 'x' },
      { highlight: 'q' },
      { highlight: [1, null, { q: 'v' }] },
    ];
    for (const facts of kinds) {
      const entry = await entryAfter([requested({ q: 'v' }), decided('r', facts)]);
      expect(entry.highlightParams, JSON.stringify(facts)).toBeUndefined();
    }
  });

  it('keeps a param called __proto__ as a plain entry', async () => {
    const params = JSON.parse('{"__proto__": "x", "q": "v"}') as Params;
    const entry = await entryAfter([requested(params), decided('r', { highlight: ['__proto__'] })]);
    expect(Object.getPrototypeOf(entry.highlightParams)).toBe(Object.prototype);
    expect(Object.entries(entry.highlightParams!)).toEqual([['__proto__', 'x']]);
  });
});
