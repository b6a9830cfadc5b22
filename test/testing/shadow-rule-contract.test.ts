import { describe, expect, it } from 'vitest';
import type { ShadowContext, ShadowRule } from '../../src/contracts/extensions.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { shadowRuleContract, type ShadowRuleSubject } from '../../src/testing/contracts/shadow-rule.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/**
 * The shadow-rule suite run on planted rules: each case must fail a rule that breaks it, naming the
 * case, and a rule that keeps the contract must pass every case (so the failures are the breaks').
 */

type Evaluate = (context: ShadowContext) => unknown;

/** A plugin with one rule `planted` (an amount limit: deny over shadow.max_amount) unless `evaluate` is given. */
function planted(evaluate?: Evaluate, over: Partial<ShadowRule> = {}) {
  const rule = {
    name: 'planted',
    order: 100,
    evaluate: (context: ShadowContext) =>
      evaluate ? evaluate(context) : limit(context.tool.shadow?.max_amount, context.params.q),
    ...over,
  } as ShadowRule;
  return definePlugin({
    id: 'planted-rule',
    apiVersion: '1',
    config: { shadow: { max_amount: { schema: { type: 'number', minimum: 0 } } } },
    register(registrar) {
      registrar.registerInit({
        deps: { rules: registrar.tokens.ShadowRules },
        init: ({ rules }, context) => rules.add(rule, context.pluginId),
      });
    },
  });
}

function limit(max: unknown, amount: unknown) {
  if (typeof max !== 'number') return undefined;
  return typeof amount === 'number' && amount > max
    ? { decision: 'deny', reason: `over ${max}` }
    : { decision: 'allow', reason: `at most ${max}` };
}

const CASES: ShadowRuleSubject['cases'] = [
  { name: 'over the limit', shadow: { max_amount: 10 }, params: { q: 50 }, expect: 'deny' },
  { name: 'no limit', expect: undefined },
];

function subject(plugin: ReturnType<typeof planted>, over: Partial<ShadowRuleSubject> = {}): ShadowRuleSubject {
  return { plugin, rule: 'planted', cases: CASES, ...over };
}

const run = (s: ShadowRuleSubject, only?: (name: string) => boolean) =>
  runSuite((api) => shadowRuleContract(api, s), only);

describe('the shadow-rule suite on planted rules', () => {
  it('passes a rule that keeps the contract, every case', async () => {
    const outcomes = await run(subject(planted(), { invalid: { shadow: { max_amount: -1 }, message: /max_amount/ } }));
    expect([...outcomes.values()]).toEqual(Array(outcomes.size).fill(PASSED));
    expect(outcomes.size).toBe(5);
  });

  it('fails a case whose call is refused before the rule is asked (a string for the json param q), naming the case', async () => {
    const outcomes = await run(
      subject(planted(), { cases: [{ name: 'hello', params: { q: 'hello' }, expect: undefined }] }),
      (name) => name.startsWith('decides'),
    );
    expect(outcomes.get('decides nothing: hello')).toMatch(
      /^case "hello": the rule was never asked \(the call ended blocked: parameter validation failed/,
    );
  });

  it.each([
    [
      'a malformed verdict',
      () => ({ decision: 'nope', reason: 'x' }),
      /it returned \{"decision":"nope","reason":"x"\}/,
    ],
    [
      'a throw',
      () => {
        throw new Error('rule bug');
      },
      /it threw Error: rule bug/,
    ],
    ['a rejected promise', () => Promise.reject(new Error('async bug')), /it threw Error: async bug/],
    ['a verdict that never comes', () => new Promise(() => undefined), /had not answered yet \(its timeoutMs passed\)/],
  ])('fails a deny case when the deny is the kernel failing closed on %s', async (_what, evaluate, said) => {
    const outcomes = await run(subject(planted(evaluate, { timeoutMs: 200 }), { cases: [CASES[0]!] }), (name) =>
      name.startsWith('decides'),
    );
    const failure = outcomes.get('decides deny: over the limit');
    expect(failure).toMatch(
      /^case "over the limit": the decision recorded \(deny: rule "planted" .*\) is not the rule's own verdict/,
    );
    expect(failure).toMatch(said);
  });

  it('fails a case where the rule says something it should not, or decides otherwise', async () => {
    const outcomes = await run(subject(planted(() => ({ decision: 'allow', reason: 'always' }))), (name) =>
      name.startsWith('decides'),
    );
    expect(outcomes.get('decides nothing: no limit')).toMatch(
      /^case "no limit": the rule said something: it returned \{"decision":"allow","reason":"always"\}/,
    );
    expect(outcomes.get('decides deny: over the limit')).toMatch(/^case "over the limit": always/);
  });

  it('fails every case when no rule has the name, and when no case is given', async () => {
    const unnamed = await run(subject(planted(undefined, { name: 'other' })));
    expect([...unnamed.values()].filter((outcome) => outcome === PASSED)).toEqual([]);
    expect(unnamed.get('decides deny: over the limit')).toBe('no rule named "planted" is registered');
    const empty = await run(subject(planted(), { cases: [] }), (name) => name === 'has cases');
    expect(empty.get('has cases')).toMatch(/gives no cases/);
  });

  it('fails a rule without a finite order, one that answers differently each time, and a block it does not refuse', async () => {
    const unordered = await run(subject(planted(undefined, { order: Number.NaN })), (name) =>
      name.startsWith('has a name'),
    );
    expect([...unordered.values()]).toEqual(['order must be a number']);
    let n = 0;
    const fickle = await run(subject(planted(() => ({ decision: 'allow', reason: `answer ${(n += 1)}` }))), (name) =>
      name.startsWith('answers the same'),
    );
    expect([...fickle.values()][0]).toMatch(/Expected values to be strictly deep-equal/);
    const lax = await run(
      subject(planted(), { invalid: { shadow: { max_amount: 'x' }, message: /nothing/ } }),
      (name) => name.startsWith('refuses'),
    );
    expect([...lax.values()][0]).not.toBe(PASSED);
  });
});
