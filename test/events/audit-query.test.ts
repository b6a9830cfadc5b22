import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentCalls, type AuditFilter } from '../../src/events/audit-query.js';
import { registerAuditViews } from '../../src/events/audit-views.js';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import type { EventLog, ReadRange } from '../../src/events/log.js';

const TOOLS = ['github.search', 'github.issue', 'fs.read', 'rare'];
const STATUSES = ['success', 'error', 'blocked'] as const;

/** Call i: tool, agent and status cycle at different rates, so every filter combination has answers. */
function call(i: number): NewEvent[] {
  const callId = `call-${i}`;
  const tool = i % 97 === 0 ? 'rare' : TOOLS[i % 3];
  const status = STATUSES[i % 5 === 0 ? 2 : i % 3 === 0 ? 1 : 0];
  return [
    {
      type: 'call.requested',
      data: { callId, rootId: callId, tool, params: { i }, iface: i % 2 ? 'mcp' : 'cli', agentId: `agent-${i % 4}` },
    },
    {
      type: 'call.completed',
      data: {
        callId,
        status,
        exitCode: status === 'success' ? 0 : 1,
        output: { text: '', bytes: 0, sha256: 'x', truncated: false },
        durationMs: i % 50,
        ...(status === 'blocked' ? { blockedBy: 'deny' } : {}),
      },
    },
  ];
}

/** The log as `logs` reads it, counting the events it is made to read. */
class CountingLog {
  read = 0;
  constructor(readonly inner: LmdbEventLog) {}
  view(): EventLog {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- inside the Proxy handler, `this` is the handler
    const counting = this;
    return new Proxy(this.inner, {
      get(target, key, receiver) {
        if (key !== 'read') return Reflect.get(target, key, receiver);
        return async function* (range?: ReadRange): AsyncIterable<Recorded> {
          for await (const event of target.read(range)) {
            counting.read += 1;
            yield event;
          }
        };
      },
    }) as EventLog;
  }
}

let dir: string;
let log: LmdbEventLog;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'factorly-audit-'));
  const writer = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
  registerAuditViews(writer);
  for (let i = 0; i < 3000; i += 300) await writer.append(Array.from({ length: 300 }, (_, k) => call(i + k)).flat());
  await writer.close();
  // A writer without indexes appends a few more: the reader finds them past the index's reach.
  const plain = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
  await plain.append(Array.from({ length: 10 }, (_, k) => call(3000 + k)).flat());
  await plain.close();
  log = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
});
afterAll(async () => {
  await log.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the audit view from its indexes', () => {
  it('answers every filter exactly as a scan of the whole log does', async () => {
    const bare = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
    const indexed = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
    registerAuditViews(indexed);
    try {
      const filter = fc.record(
        {
          tool: fc.option(fc.constantFrom('github', 'rare', 'fs.read', 'nope'), { nil: undefined }),
          agent: fc.option(fc.constantFrom('agent-1', 'agent-3', 'nobody'), { nil: undefined }),
          status: fc.option(fc.constantFrom('success', 'error', 'blocked', 'running'), { nil: undefined }),
          iface: fc.option(fc.constantFrom('cli', 'mcp'), { nil: undefined }),
          since: fc.option(
            fc.integer({ min: 1, max: 6020 }).map((seq) => ({ seq })),
            { nil: undefined },
          ),
          until: fc.option(
            fc.integer({ min: 1, max: 6020 }).map((seq) => ({ seq })),
            { nil: undefined },
          ),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(filter, fc.integer({ min: 1, max: 40 }), async (f, limit) => {
          expect(await recentCalls(indexed, f as AuditFilter, limit)).toEqual(
            await recentCalls(bare, f as AuditFilter, limit),
          );
        }),
        { numRuns: 60 },
      );
    } finally {
      await Promise.all([bare.close(), indexed.close()]);
    }
  });

  it('in a process that keeps no indexes, reads the events rather than the stored index, and distrusts nothing', async () => {
    const bare = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
    const indexed = new LmdbEventLog({ path: join(dir, 'events.lmdb') });
    registerAuditViews(indexed);
    try {
      const filter: AuditFilter = { status: 'blocked', iface: 'mcp', until: { seq: 749 } };
      const found = await recentCalls(bare, filter, 40);
      // Calls 5, 15, 25, …: blocked (i % 5 === 0) over mcp (odd i), requested at seq 2i + 1 ≤ 749.
      expect(found.map((entry) => entry.callId)).toEqual(Array.from({ length: 37 }, (_, k) => `call-${10 * k + 5}`));
      expect(await recentCalls(indexed, filter, 40)).toEqual(found);
      expect(await bare.lastOf('projection.rebuilt')).toBeUndefined();
    } finally {
      await Promise.all([bare.close(), indexed.close()]);
    }
  });

  it('reads only the calls the index names for a rare tool, not the log', async () => {
    registerAuditViews(log);
    const counting = new CountingLog(log);
    const found = await recentCalls(counting.view(), { tool: 'rare' }, 20);
    expect(found.map((entry) => entry.tool)).toEqual(Array(20).fill('rare'));
    // The 20 anchors, and the 10 events past the index's reach; never the 6,000 others.
    expect(counting.read).toBeLessThan(60);
  });
});
