import { afterEach, describe, expect, it } from 'vitest';
import type { Projection, ShadowRule } from 'factorly';
import type { NewEvent } from '../../../src/events/envelope.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbEventLog } from '../../../src/events/lmdb-log.js';
import { ShadowGate } from '../../../src/kernel/shadow-gate.js';
import { OrderedSlot } from '../../../src/kernel/slots.js';
import type { Kernel } from '../../../src/kernel/kernel.js';
import { replay } from '../../../src/events/replay.js';
import { bucketsProjection, type Buckets } from '../src/rate-limit-rule.js';
import { loopProjection } from '../src/loop-rule.js';
import { contribute, decisions, shadowKernel } from './helpers.js';
import { toolDefinition } from '../../../test/helpers/tool-definition.js';

const YAML = 'tools:\n  t: {type: cli, command: echo, args: [ran]}\n';
let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

async function callWith(rule: ShadowRule) {
  const started = await shadowKernel(YAML, [contribute('third-party', { rules: [rule] })]);
  kernel = started.kernel;
  const outcome = await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' });
  return { outcome, decided: await decisions(started.log, outcome.callId) };
}

describe('rules that cannot decide', () => {
  it('denies when a rule throws, naming the rule and its plugin', async () => {
    const { outcome, decided } = await callWith({
      name: 'crashy',
      order: 100,
      evaluate: () => {
        throw new Error('no database');
      },
    });
    expect(outcome).toMatchObject({ status: 'blocked', error: 'rule "crashy" failed (failing closed): no database' });
    expect(decided.at(-1)).toMatchObject({
      rule: 'crashy',
      plugin: 'third-party',
      decision: 'deny',
      reason: outcome.error,
    });
  });

  it('denies when a rule runs past its time budget', async () => {
    const { outcome, decided } = await callWith({
      name: 'sleepy',
      order: 100,
      timeoutMs: 50,
      evaluate: () => new Promise(() => undefined),
    });
    expect(outcome.error).toBe('rule "sleepy" timed out after 50ms (failing closed)');
    expect(decided.at(-1)).toMatchObject({ rule: 'sleepy', decision: 'deny' });
  });

  it('lets the call through with a warning when the rule declared itself fail-open', async () => {
    const { outcome, decided } = await callWith({
      name: 'advisory',
      order: 100,
      failOpen: true,
      evaluate: () => {
        throw new Error('offline');
      },
    });
    expect(outcome).toMatchObject({ status: 'success', output: 'ran\n' });
    expect(outcome.diagnostics).toBe('warning: rule "advisory" failed (failing open, as the rule declares): offline\n');
    expect(decided.at(-1)).toMatchObject({ rule: 'advisory', decision: 'warn' });
  });

  it('denies when a rule cannot read its state from the log', async () => {
    const broken: Projection<number> = {
      name: 'broken',
      init: () => 0,
      evolve: () => {
        throw new Error('cannot fold');
      },
    };
    const { outcome, decided } = await callWith({
      name: 'stateful',
      order: 100,
      history: broken,
      evaluate: () => ({ decision: 'allow', reason: 'ok' }),
    });
    expect(outcome.error).toBe(
      'rule "stateful" could not read its state (failing closed): projection "broken" could not fold the log: cannot fold',
    );
    expect(decided.map((d) => `${d.rule}:${d.decision}`)).toEqual(['loop-detection:allow', 'stateful:deny']);
  });

  it('hands a third-party history rule its fold and records the facts it returns', async () => {
    const counted: Projection<number> = {
      name: 'count-mine',
      init: () => 0,
      evolve: (n, event) => (event.type === 'shadow.decided' && event.data.rule === 'every-other' ? n + 1 : n),
    };
    const rule: ShadowRule<number> = {
      name: 'every-other',
      order: 100,
      history: counted,
      evaluate: (_, seen) =>
        seen % 2 === 0
          ? { decision: 'allow', reason: `seen ${seen}`, facts: { seen } }
          : { decision: 'deny', reason: `odd: ${seen}` },
    };
    const started = await shadowKernel(YAML, [contribute('third-party', { rules: [rule as ShadowRule] })]);
    kernel = started.kernel;
    const outcomes = [];
    for (let i = 0; i < 4; i += 1)
      outcomes.push(await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp', agentId: `a${i}` }));
    expect(outcomes.map((o) => o.status)).toEqual(['success', 'blocked', 'success', 'blocked']);
    expect((await decisions(started.log, outcomes[2].callId)).at(-1)).toMatchObject({
      rule: 'every-other',
      decision: 'allow',
      facts: { seen: 2 },
    });
    expect(outcomes[3].error).toBe('odd: 3');
  });
});

describe('state rebuilt from the log', () => {
  it('replaying from scratch gives the buckets and windows the live gate used', async () => {
    const yaml =
      'tools:\n  t:\n    type: cli\n    command: echo\n    args: ["{{q}}"]\n    shadow: {rate_limit: 5/hour, scope: server, loop: {warn: 3, block: 5}}\n';
    const started = await shadowKernel(yaml);
    kernel = started.kernel;
    for (const q of ['a', 'b', 'a', 'b', 'a', 'a', 'c'])
      await kernel.pipeline.call({ tool: 't', params: { q }, iface: 'mcp', agentId: 'x' });
    const live = await kernel.shadow.historySnapshot(started.log);
    expect(live.seq).toBe((await started.log.head()).seq);
    expect(live.states['rate-limit']).toEqual(await replay(started.log, bucketsProjection));
    expect(live.states['loop-detection']).toEqual(await replay(started.log, loopProjection));
    const buckets = live.states['rate-limit'] as Buckets;
    expect([...buckets.entries.keys()]).toEqual(['server:t']);
    expect(buckets.entries.get('server:t')).toEqual({ window: 3_600_000, items: expect.any(Array) });
    expect(buckets.entries.get('server:t')?.items).toHaveLength(5);
  });
});

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
    const rules = new OrderedSlot<ShadowRule>();
    rules.add(rule as ShadowRule, 'test');
    const gate = new ShadowGate(rules, new OrderedSlot());
    const tool = toolDefinition();
    try {
      await gate.check(log, { callId: 'c1', tool, params: {}, iface: 'cli' });
      const decided = (await log.readCall('c1')).find((e) => e.type === 'shadow.decided');
      // Every one of the 400 events counts (the full history, not a window of it) …
      expect(decided?.data).toMatchObject({ rule: 'tiers', reason: '400 odd' });
      // … yet this process folded only the one event it appended (its decision): the rest came from the snapshot.
      expect(folds).toBe(1);
      expect((await gate.historySnapshot(log)).states.tiers).toEqual(await replay(log, seen));
    } finally {
      await log.close();
    }
  });
});
