import type { ShadowContext, ShadowRule } from '../../kernel/contracts/extensions.js';
import { assert } from '../suite.js';

/** What the rule answered when the kernel asked it about one call. */
export type RuleAnswer = { returned: unknown } | { threw: unknown } | { pending: true };

export interface RuleAsk {
  callId: string;
  answer: RuleAnswer;
}

/** Every time the kernel asked the rule, and what it answered; `restore` puts the rule's own `evaluate` back. */
export interface RuleWatch {
  asks: RuleAsk[];
  restore(): void;
}

/**
 * Watches the rule instance the kernel asks: a case must show that the rule itself was asked (a call
 * refused before the gate tests nothing) and that what was recorded is what the rule answered (a
 * fail-closed deny for a throw, a timeout or a malformed verdict is the kernel's, not the rule's).
 */
export function watchRule(rule: ShadowRule): RuleWatch {
  const asks: RuleAsk[] = [];
  const own = Object.getOwnPropertyDescriptor(rule, 'evaluate');
  const evaluate = rule.evaluate;
  function watched(this: ShadowRule, context: ShadowContext, state: unknown): ReturnType<ShadowRule['evaluate']> {
    const ask: RuleAsk = { callId: context.callId, answer: { pending: true } };
    asks.push(ask);
    let answer: ReturnType<ShadowRule['evaluate']>;
    try {
      answer = evaluate.call(this, context, state);
    } catch (error) {
      ask.answer = { threw: error };
      throw error;
    }
    if (!isThenable(answer)) ask.answer = { returned: answer };
    // Attached before the kernel's own handlers, so the answer is known by the time it is recorded.
    else
      answer.then(
        (returned) => void (ask.answer = { returned }),
        (threw: unknown) => void (ask.answer = { threw }),
      );
    return answer;
  }
  try {
    Object.defineProperty(rule, 'evaluate', { value: watched, configurable: true, writable: true });
  } catch (error) {
    assert.fail(
      `the rule "${rule.name}" cannot be watched (its evaluate cannot be wrapped: ${String(error)}), so the suite cannot tell that it was asked`,
    );
  }
  return {
    asks,
    restore: () => {
      if (own) Object.defineProperty(rule, 'evaluate', own);
      else delete (rule as { evaluate?: unknown }).evaluate;
    },
  };
}

/** What the rule answered, as a case's failure message quotes it. */
export function described(answer: RuleAnswer): string {
  if ('pending' in answer) return 'it had not answered when the kernel gave up on it (its timeoutMs passed)';
  if ('threw' in answer) return `it threw ${String(answer.threw)}`;
  let shown: string;
  try {
    shown = JSON.stringify(answer.returned) ?? String(answer.returned);
  } catch {
    shown = String(answer.returned);
  }
  return `it returned ${shown}`;
}

/** Whether the rule itself answered this decision and reason (not the kernel in its place). */
export function answeredAs(answer: RuleAnswer, decision: string, reason: string): boolean {
  if (!('returned' in answer)) return false;
  const verdict = answer.returned as { decision?: unknown; reason?: unknown } | null | undefined;
  return typeof verdict === 'object' && verdict?.decision === decision && verdict.reason === reason;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Promise<unknown>).then === 'function';
}
