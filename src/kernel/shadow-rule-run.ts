import { messageOf } from '../base/errors.js';
import type { ShadowContext, ShadowRule, ShadowVerdict } from '../contracts/extensions.js';
import { checkVerdict } from '../contracts/verdict-check.js';

export const DEFAULT_RULE_TIMEOUT_MS = 5_000;

/**
 * Evaluates one rule with its time budget. A rule that throws or runs out of time denies the call
 * with a reason naming it (fail closed), unless the rule declared `failOpen`: then it warns.
 */
export async function runRule(
  rule: ShadowRule,
  context: ShadowContext,
  state: unknown,
): Promise<ShadowVerdict | undefined> {
  let answer: unknown;
  try {
    answer = rule.evaluate(context, state);
  } catch (error) {
    return failed(rule, 'failed', messageOf(error));
  }
  // A verdict given at once needs no time budget (and no timer on the hot path).
  if (!isThenable(answer)) return checkVerdict(rule, answer);
  const timeoutMs = rule.timeoutMs ?? DEFAULT_RULE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RuleTimeout(timeoutMs)), timeoutMs);
  });
  try {
    return checkVerdict(rule, await Promise.race([answer, timedOut]));
  } catch (error) {
    return error instanceof RuleTimeout
      ? failed(rule, `timed out after ${timeoutMs}ms`)
      : failed(rule, 'failed', messageOf(error));
  } finally {
    clearTimeout(timer);
  }
}

/** What `runRuleNow` answers for a rule whose verdict is a promise. */
export const ASYNC = Symbol('async verdict');

/**
 * Evaluates one rule synchronously (inside a write, where nothing can be awaited): a throw denies as
 * in `runRule`; a promise is dropped (its outcome ignored) and reported as `ASYNC`.
 */
export function runRuleNow(
  rule: ShadowRule,
  context: ShadowContext,
  state: unknown,
): ShadowVerdict | undefined | typeof ASYNC {
  try {
    const verdict: unknown = rule.evaluate(context, state);
    if (isThenable(verdict)) {
      Promise.resolve(verdict).catch(() => undefined);
      return ASYNC;
    }
    return checkVerdict(rule, verdict);
  } catch (error) {
    return failed(rule, 'failed', messageOf(error));
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** The verdict for a rule that could not decide (threw, timed out, could not read its state). */
export function failed(rule: ShadowRule, what: string, detail?: string): ShadowVerdict {
  const tail = detail === undefined ? '' : `: ${detail}`;
  return rule.failOpen
    ? { decision: 'warn', reason: `rule "${rule.name}" ${what} (failing open, as the rule declares)${tail}` }
    : { decision: 'deny', reason: `rule "${rule.name}" ${what} (failing closed)${tail}` };
}

class RuleTimeout extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms}ms`);
  }
}
