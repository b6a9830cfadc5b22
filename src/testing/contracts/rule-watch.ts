import type { ShadowContext, ShadowRule } from '../../contracts/extensions.js';
import { watchMethod, type Answer, type Watch } from './watch.js';

export { described } from './watch.js';

/**
 * Watches the rule instance the kernel asks: a case must show that the rule itself was asked (a call
 * refused before the gate tests nothing) and that what was recorded is what the rule answered (a
 * fail-closed deny for a throw, a timeout or a malformed verdict is the kernel's, not the rule's).
 */
export function watchRule(rule: ShadowRule): Watch<[ShadowContext, unknown]> {
  return watchMethod(rule, 'evaluate', `the rule "${rule.name}"`);
}

/** Whether the rule itself answered this decision and reason (not the kernel in its place). */
export function answeredAs(answer: Answer, decision: string, reason: string): boolean {
  if (!('returned' in answer)) return false;
  const verdict = answer.returned as { decision?: unknown; reason?: unknown } | null | undefined;
  return typeof verdict === 'object' && verdict?.decision === decision && verdict.reason === reason;
}
