import { messageOf } from './base/errors.js';
import type { ShadowContext, ShadowRule, ShadowVerdict } from './contracts/extensions.js';

export const DEFAULT_RULE_TIMEOUT_MS = 5_000;

/**
 * Evaluates one rule with its time budget. A rule that throws or runs out of time denies the call
 * with a reason naming it (fail closed), unless the rule declared `failOpen`: then it warns.
 */
export async function runRule(rule: ShadowRule, context: ShadowContext, state: unknown): Promise<ShadowVerdict | undefined> {
  let answer: ReturnType<ShadowRule['evaluate']>;
  try {
    answer = rule.evaluate(context, state);
  } catch (error) {
    return failed(rule, 'failed', messageOf(error));
  }
  // A verdict given at once needs no time budget (and no timer on the hot path).
  if (!isPromise(answer)) return answer;
  const timeoutMs = rule.timeoutMs ?? DEFAULT_RULE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RuleTimeout(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([answer, timedOut]);
  } catch (error) {
    return error instanceof RuleTimeout ? failed(rule, `timed out after ${timeoutMs}ms`) : failed(rule, 'failed', messageOf(error));
  } finally {
    clearTimeout(timer);
  }
}

function isPromise<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

/** What `runRuleNow` answers for a rule whose verdict is a promise. */
export const ASYNC = Symbol('async verdict');

/**
 * Evaluates one rule synchronously (inside a write, where nothing can be awaited): a throw denies as
 * in `runRule`; a promise is dropped (its outcome ignored) and reported as `ASYNC`.
 */
export function runRuleNow(rule: ShadowRule, context: ShadowContext, state: unknown): ShadowVerdict | undefined | typeof ASYNC {
  try {
    const verdict = rule.evaluate(context, state);
    if (isPromise(verdict)) {
      Promise.resolve(verdict).catch(() => undefined);
      return ASYNC;
    }
    return verdict;
  } catch (error) {
    return failed(rule, 'failed', messageOf(error));
  }
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
