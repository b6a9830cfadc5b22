import type { ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { policyOf } from './policy.js';

/** The rule's name: a code tool's host recognises the refusals it makes by it (`CallOutcome.blockedBy`). */
export const MAX_CALLS_RULE = 'max-calls';

/**
 * `shadow.max_calls`: how many tools one run of a code tool may call, counting every call of its
 * subtree (a script that calls another script spends its own budget too, so nesting cannot multiply
 * it). The nearest run whose budget is spent refuses the call, which is then recorded, never dropped.
 * Says nothing about calls that are within every budget.
 */
export class MaxCallsRule implements ShadowRule {
  readonly name = MAX_CALLS_RULE;
  readonly order = 35;

  evaluate({ callers }: ShadowContext): ShadowVerdict | undefined {
    for (const caller of callers ?? []) {
      const { maxCalls } = policyOf(caller.tool);
      if (caller.innerCalls >= maxCalls) {
        return {
          decision: 'deny',
          reason: `max_calls exceeded: one run of "${caller.tool.name}" may call at most ${maxCalls} tools (shadow.max_calls)`,
        };
      }
    }
    return undefined;
  }
}
