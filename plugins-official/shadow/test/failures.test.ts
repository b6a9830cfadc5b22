import { afterEach, describe, expect, it } from 'vitest';
import type { Projection, ShadowRule } from 'factorly';
import { replay } from 'factorly/events';
import type { Kernel } from 'factorly/testing';
import { bucketsProjection, type Buckets } from '../src/rate-limit-rule.js';
import { loopProjection } from '../src/loop-rule.js';
import { contribute, decisions, shadowKernel } from './helpers.js';

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
