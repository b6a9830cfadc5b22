import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/events/envelope.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import type { Projection } from '../../src/events/projection.js';
import { replay } from '../../src/events/replay.js';
import type { ShadowRule } from '../../src/contracts/extensions.js';
import { ShadowGate } from '../../src/kernel/shadow-gate.js';
import { OrderedRegistry } from '../../src/kernel/registries.js';
import { toolDefinition } from '../helpers/tool-definition.js';

describe('cold start from the persisted projection', () => {
  it('a fresh process folds only the events after the newest snapshot, never from seq 1 or from a guessed horizon', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'factorly-cold-')), 'events.lmdb');
    let folds = 0;
    const seen: Projection<string[]> = {
      name: 'tiers',
      init: () => [],
      evolve: (tiers, e) => {
        folds += 1;
        return e.type === 'vault.accessed' ? [...tiers, e.data.tier] : tiers;
      },
    };
    const writer = new LmdbEventLog({ path });
    writer.project(seen);
    const old = Array.from({ length: 400 }, (_, i): NewEvent => ({
      type: 'vault.accessed',
      data: { op: 'get', key: `k${i}`, tier: i % 2 ? 'odd' : 'even' },
    }));
    await writer.append(old);
    await writer.close();
    folds = 0;

    const log = new LmdbEventLog({ path });
    const rule: ShadowRule<string[]> = {
      name: 'tiers',
      order: 1,
      history: seen,
      evaluate: (_, tiers) => ({ decision: 'allow', reason: `${tiers.length} ${tiers.at(-1)}` }),
    };
    const rules = new OrderedRegistry<ShadowRule>();
    rules.add(rule as ShadowRule, 'test');
    const gate = new ShadowGate(rules, new OrderedRegistry());
    const tool = toolDefinition();
    try {
      await gate.check(log, { callId: 'c1', tool, params: {}, iface: 'cli' });
      const decided = (await log.readCall('c1')).find((e) => e.type === 'shadow.decided');
      // Every one of the 400 events counts (the full history, not a window of it) …
      expect(decided?.data).toMatchObject({ rule: 'tiers', reason: '400 odd' });
      // … yet this process folded only the event recording the snapshot's digest (the one after it) and
      // the one it appended (its decision): the rest came from the snapshot.
      expect(folds).toBe(2);
      expect((await gate.historySnapshot(log)).states.tiers).toEqual(await replay(log, seen));
    } finally {
      await log.close();
    }
  });
});
