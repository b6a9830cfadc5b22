import type { Decision, JsonValue, Params } from '../../events/catalog.js';
import { fold } from '../../events/projection.js';
import type { ShadowContext, ShadowRule } from '../../contracts/extensions.js';
import type { PluginDefinition } from '../../plugins/define-plugin.js';
import { startTestKernel, type TestKernel } from '../kernel.js';
import { assert, within, type TestApi } from '../suite.js';
import { answeredAs, described, watchRule } from './rule-watch.js';
import type { Watch } from './watch.js';

export interface ShadowRuleCase {
  name: string;
  /** The tool's `shadow:` block (the keys your plugin declares, as a user writes them). */
  shadow?: Record<string, JsonValue>;
  params?: Params;
  /** What the rule decides, or undefined when it has nothing to say about the call. */
  expect: Decision | undefined;
}

export interface ShadowRuleSubject {
  plugin: PluginDefinition;
  /** The rule's name (a plugin may register several). */
  rule: string;
  cases: readonly ShadowRuleCase[];
  /** A `shadow:` block the plugin's schema or checks must refuse, and what the error says. */
  invalid?: { shadow: Record<string, JsonValue>; message: RegExp };
  official?: readonly string[];
}

/** How long one call of a case may take besides the rule's own budget (5 s unless it sets `timeoutMs`). */
const CALL_MS = 10_000;

/** A cli tool `t` (echo) with the case's shadow block; the official cli provider runs it. */
const yamlOf = (shadow?: Record<string, JsonValue>) =>
  `tools: ${JSON.stringify({ t: { type: 'cli', command: 'echo', args: ['ran'], parameters: [{ name: 'q', type: 'json' }], ...(shadow ? { shadow } : {}) } })}\n`;

/**
 * What every `ShadowRule` must do: a name and an order; for each case, the decision recorded in
 * `shadow.decided` (with the plugin's id and a reason) or nothing; the same answer for the same call
 * and state (a rule may be asked again when the log moved); a `history` projection whose fold from
 * the log is what the kernel folded live; and, when the rule takes per-tool settings, a bad block is
 * a config error naming its line.
 */
export function shadowRuleContract(test: TestApi, subject: ShadowRuleSubject): void {
  const { describe, it } = test;
  const official = ['provider-cli', ...(subject.official ?? [])];
  const start = (shadow?: Record<string, JsonValue>) => startTestKernel(yamlOf(shadow), [subject.plugin], { official });
  const ruleOf = (kernel: TestKernel): ShadowRule => {
    const rule = kernel.kernel.shadow.ruleList().find((each) => each.name === subject.rule);
    assert.ok(rule, `no rule named "${subject.rule}" is registered`);
    return rule;
  };
  describe(`ShadowRule contract: ${subject.rule}`, () => {
    it('has a name and an order, and a budget that is a positive number when it sets one', async () => {
      const kernel = await start();
      try {
        const rule = ruleOf(kernel);
        assert.ok(Number.isFinite(rule.order), 'order must be a number');
        if (rule.timeoutMs !== undefined) assert.ok(rule.timeoutMs > 0, 'timeoutMs must be positive');
        if (rule.history)
          assert.ok(
            rule.history.name && Number.isInteger(rule.history.version),
            'a history projection needs a name and a version',
          );
      } finally {
        await kernel.stop();
      }
    });

    if (subject.cases.length === 0)
      it('has cases', () => assert.fail('the subject gives no cases: the suite would test no decision'));
    for (const each of subject.cases) {
      it(`decides ${each.expect ?? 'nothing'}: ${each.name}`, async () => {
        const kernel = await start(each.shadow);
        let watch: Watch<[ShadowContext, unknown]> | undefined;
        try {
          const rule = ruleOf(kernel);
          watch = watchRule(rule);
          const bound = (rule.timeoutMs ?? 5_000) + CALL_MS;
          const outcome = await within(kernel.call('t', each.params ?? {}), bound, `case "${each.name}": the call`);
          const asked = watch.calls.filter((ask) => ask.args[0].callId === outcome.callId);
          const ended = `${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`;
          assert.ok(asked.length > 0, `case "${each.name}": the rule was never asked (the call ended ${ended})`);
          const decided = (await kernel.events()).filter(
            (event) =>
              event.type === 'shadow.decided' &&
              event.data.callId === outcome.callId &&
              event.data.rule === subject.rule,
          ) as { data: { decision: string; reason: string; plugin: string } }[];
          if (each.expect === undefined) {
            const said = asked.find((ask) => !('returned' in ask.answer) || ask.answer.returned !== undefined);
            assert.equal(
              said,
              undefined,
              `case "${each.name}": the rule said something: ${said && described(said.answer)}`,
            );
            return assert.deepEqual(decided, [], `case "${each.name}": a decision was recorded`);
          }
          assert.equal(decided.length, 1, `case "${each.name}": the rule decided ${decided.length} times`);
          const { decision, reason, plugin } = decided[0]!.data;
          assert.ok(
            asked.some((ask) => answeredAs(ask.answer, decision, reason)),
            `case "${each.name}": the decision recorded (${decision}: ${reason}) is not the rule's own verdict, ${described(asked.at(-1)!.answer)}${'pending' in asked.at(-1)!.answer ? ' (its timeoutMs passed)' : ''}`,
          );
          assert.equal(decision, each.expect, `case "${each.name}": ${reason}`);
          assert.ok(reason.trim() !== '', `case "${each.name}": a decision needs a reason`);
          assert.equal(plugin, subject.plugin.id, `case "${each.name}": recorded for another plugin`);
        } finally {
          watch?.restore();
          await kernel.stop();
        }
      });
    }

    it('answers the same for the same call and state, and its history folds from the log as it was folded live', async () => {
      const first = subject.cases[0];
      const kernel = await start(first?.shadow);
      try {
        for (let i = 0; i < 3; i += 1) await kernel.call('t', first?.params ?? {});
        const rule = ruleOf(kernel);
        const tool = kernel.kernel.registry.get('t')!;
        const context = {
          callId: 'again',
          tool,
          params: first?.params ?? {},
          iface: 'cli',
          fingerprint: 'f',
          now: Date.now(),
        };
        const events = await kernel.events();
        const state = rule.history ? fold(events, rule.history) : undefined;
        assert.deepEqual(await rule.evaluate(context, state), await rule.evaluate(context, state));
        if (rule.history) {
          const live = await kernel.kernel.shadow.historySnapshot(kernel.kernel.log());
          assert.deepEqual(
            live.states[rule.name],
            fold(events, rule.history),
            'the live state differs from a fold of the log',
          );
        }
      } finally {
        await kernel.stop();
      }
    });

    if (subject.invalid) {
      const { shadow, message } = subject.invalid;
      it('refuses a bad shadow block at load time, naming the tool and the line', async () => {
        await assert.rejects(
          start(shadow),
          (error: Error) =>
            /config: tool "t" has .*\(\.factorly\/factorly\.yaml:1\)/.test(error.message) &&
            message.test(error.message),
        );
      });
    }
  });
}
