import { afterEach, describe, expect, it } from 'vitest';
import type { Projection } from '../../src/events/projection.js';
import type { ShadowRule } from '../../src/contracts/extensions.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { ShadowGate } from '../../src/kernel/shadow-gate.js';
import { OrderedRegistry } from '../../src/kernel/registries.js';
import type { PersonChannel } from '../../src/contracts/person.js';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { contribute, decisions } from '../helpers/shadow.js';
import { toolDefinition } from '../helpers/tool-definition.js';

// The tool prints "ran": an empty output shows a denied call never ran.
const YAML = 'tools:\n  t: {type: cli, command: echo, args: [ran]}\n';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

const MALFORMED: [string, unknown, string][] = [
  ['an unknown decision', { decision: 'block', reason: 'nope' }, '{"decision":"block","reason":"nope"}'],
  ['a bare string', 'deny', '"deny"'],
  ['an object without decision', { reason: 'looks fine' }, '{"reason":"looks fine"}'],
  ['a decision without a reason', { decision: 'allow' }, '{"decision":"allow"}'],
  ['a reason that is not a string', { decision: 'allow', reason: 42 }, '{"decision":"allow","reason":42}'],
  ['null', null, 'null'],
  ['an array', [{ decision: 'allow', reason: 'ok' }], '[{"decision":"allow","reason":"ok"}]'],
  ['a number', 1, '1'],
  [
    'facts that are not an object',
    { decision: 'allow', reason: 'ok', facts: 'x' },
    '{"decision":"allow","reason":"ok","facts":"x"}',
  ],
  [
    'a confirm timeout that is not a duration',
    { decision: 'confirm', reason: 'ask', timeoutMs: 'soon' },
    '{"decision":"confirm","reason":"ask","timeoutMs":"soon"}',
  ],
  ['an inherited decision', Object.create({ decision: 'allow', reason: 'inherited' }), '{}'],
];

describe('every verdict is validated at the boundary', () => {
  for (const [what, returned, shown] of MALFORMED) {
    it(`denies the call when a rule returns ${what}, naming the rule and what it returned`, async () => {
      const rule: ShadowRule = { name: 'sloppy', order: 100, evaluate: () => returned as never };
      const started = await startTestKernel(YAML, [shadow, contribute('third-party', { rules: [rule] })]);
      kernel = started.kernel;
      const outcome = await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' });
      expect(outcome).toMatchObject({ status: 'blocked', output: '' });
      expect(outcome.error).toMatch(/^rule "sloppy" returned a malformed verdict \(failing closed\): /);
      expect(outcome.error).toContain(`it returned ${shown}`);
      const decided = (await decisions(started.log, outcome.callId)).at(-1);
      expect(decided).toMatchObject({
        rule: 'sloppy',
        plugin: 'third-party',
        decision: 'deny',
        reason: outcome.error,
        facts: { returned: shown },
      });
    });
  }

  it('denies a verdict whose reason or facts are over their bounds (4096 characters, 64 KiB of JSON), never storing them whole', async () => {
    const facts = Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, i]));
    const cases: [unknown, string][] = [
      [
        { decision: 'allow', reason: 'x'.repeat(10 * 1024 * 1024) },
        'reason is 10485760 characters, over the bound of 4096',
      ],
      [{ decision: 'allow', reason: 'ok', facts }, 'facts are 4877781 bytes as JSON, over the bound of 65536'],
    ];
    for (const [returned, problem] of cases) {
      const rule: ShadowRule = { name: 'chatty', order: 100, evaluate: () => returned as never };
      const started = await startTestKernel(YAML, [shadow, contribute('third-party', { rules: [rule] })]);
      kernel = started.kernel;
      const outcome = await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' });
      expect(outcome).toMatchObject({ status: 'blocked', output: '' });
      expect(outcome.error).toContain(
        `rule "chatty" returned a malformed verdict (failing closed): ${problem}; it returned`,
      );
      const decided = (await decisions(started.log, outcome.callId)).at(-1);
      expect(decided).toMatchObject({ rule: 'chatty', decision: 'deny', reason: outcome.error });
      expect(JSON.stringify(decided).length).toBeLessThan(2000);
      await kernel.stop();
      kernel = undefined;
    }
    // At the bounds, a verdict is kept as it was given.
    const atBounds = { decision: 'allow', reason: 'r'.repeat(4096), facts: { note: 'f'.repeat(65_000) } };
    const rule: ShadowRule = { name: 'full', order: 100, evaluate: () => atBounds as never };
    const started = await startTestKernel(YAML, [shadow, contribute('third-party', { rules: [rule] })]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' });
    expect(outcome).toMatchObject({ status: 'success' });
    expect((await decisions(started.log, outcome.callId)).at(-1)).toMatchObject({ rule: 'full', ...atBounds });
  });

  it('denies a malformed verdict even from a rule that declares failOpen', async () => {
    const rule: ShadowRule = {
      name: 'lenient',
      order: 100,
      failOpen: true,
      evaluate: () => ({ decision: 'maybe' }) as never,
    };
    const started = await startTestKernel(YAML, [shadow, contribute('third-party', { rules: [rule] })]);
    kernel = started.kernel;
    expect(await kernel.pipeline.call({ tool: 't', params: {}, iface: 'mcp' })).toMatchObject({ status: 'blocked' });
  });

  it('checks a verdict decided again inside a write (a history rule on the synchronous path) the same way', async () => {
    const log = new MemoryEventLog();
    const counted: Projection<number> = { name: 'n', init: () => 0, evolve: (n) => n + 1 };
    let calls = 0;
    // Well-formed on the first decision, malformed when asked again after another writer moved the log.
    const rule: ShadowRule<number> = {
      name: 'flaky',
      order: 100,
      history: counted,
      evaluate: () => (calls++ === 0 ? { decision: 'allow', reason: 'ok' } : ({ decision: 'block' } as never)),
    };
    const rules = new OrderedRegistry<ShadowRule>();
    rules.add(rule as ShadowRule, 'third-party');
    const gate = new ShadowGate(rules, new OrderedRegistry<PersonChannel>());
    const tool = toolDefinition();
    const append = log.append.bind(log);
    let moved = false;
    // Another writer appends between the decision and its write, so the gate decides again in the write.
    log.append = async (events, options) => {
      if (options?.expectedSeq !== undefined && !moved) {
        moved = true;
        await append([{ type: 'session.closed', data: { sessionId: 's', iface: 'mcp' } }]);
      }
      return append(events, options);
    };
    const result = await gate.check(log, { callId: 'c1', tool, params: {}, iface: 'mcp' });
    expect(result).toMatchObject({
      blocked: true,
      decision: 'deny',
      rule: 'flaky',
      reason: expect.stringContaining('rule "flaky" returned a malformed verdict'),
    });
    expect(calls, 'asked once before the write and once inside it').toBe(2);
    const decided = (await eventsOf(log)).filter((e) => e.type === 'shadow.decided').map((e) => e.data);
    expect(decided).toEqual([
      expect.objectContaining({ rule: 'flaky', decision: 'deny', facts: { returned: '{"decision":"block"}' } }),
    ]);
  });
});
