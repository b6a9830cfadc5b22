import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { ShadowRule } from '../../src/contracts/extensions.js';
import { recheckDecisions } from '../../src/evidence/shadow-recheck.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { rulePlugin } from '../helpers/rule-plugin.js';

/** A history rule whose fold breaks on the second call it sees: from then on the rule cannot read its state. */
const brittle: ShadowRule<number> = {
  name: 'brittle',
  order: 50,
  history: {
    name: 'test.brittle',
    version: 1,
    init: () => 0,
    evolve(seen, event) {
      if (event.type !== 'call.requested') return seen;
      if (seen === 1) throw new Error('cannot count past one');
      return seen + 1;
    },
  },
  evaluate: (_context, seen) => ({ decision: 'allow', reason: `seen ${seen}` }),
};

const brittlePlugin = rulePlugin(brittle as ShadowRule, 'test-brittle');

const CONFIG = 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('one rule chain for the gate and the recheck', () => {
  it('a fold that broke fails its rule closed live, and the recheck re-derives that same refusal', async () => {
    const started = await startTestKernel(CONFIG, [brittlePlugin]);
    kernel = started.kernel;
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push(await kernel.pipeline.call({ tool: 'hi', params: {}, iface: 'cli' }));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['success', 'success', 'blocked']);
    expect(outcomes[2].error).toMatch(/^rule "brittle" could not read its state \(failing closed\): /);
    const decided = (await eventsOf(started.log)).filter((event) => event.type === 'shadow.decided');
    expect(decided.map((event) => event.data.decision)).toEqual(['allow', 'allow', 'deny']);
    const report = await recheckDecisions(started.log, kernel.shadow.ruleList(), {
      current: (name) => kernel!.registry.get(name),
      under: 'current',
    });
    expect(report).toMatchObject({ checked: 3, mismatches: [], skipped: [] });
  });
});
