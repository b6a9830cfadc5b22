import { BLOCKING_DECISIONS } from '../events/catalog.js';
import type { Recorded } from '../events/envelope.js';

/** Decisions that stop a call: it must not run after one of them. */
const BLOCKING = new Set<string>(BLOCKING_DECISIONS);

/**
 * Why a call's recorded outcome contradicts its recorded decisions, or undefined when it does not:
 * a call ran (completed `success` or `error`) though a rule blocked it, or a confirmation was asked
 * and not approved, or no rule let it through while the rules had something to say about it
 * (`decided`: the rules re-derived a decision); or it was blocked by a rule though every decision
 * let it through. A call stopped before the rules (`unknown_tool`, `invalid`) is not judged here.
 */
export function outcomeContradiction(own: readonly Recorded[], decided: boolean): string | undefined {
  const completed = own.find((event): event is Recorded<'call.completed'> => event.type === 'call.completed');
  if (!completed) return undefined;
  const decisions = own
    .filter((event): event is Recorded<'shadow.decided'> => event.type === 'shadow.decided')
    .map((event) => `${event.data.rule}:${event.data.decision}`);
  const approved = own.some((event) => event.type === 'confirm.resolved' && event.data.approved);
  const blocking = decisions.find((decision) => {
    const verdict = decision.slice(decision.lastIndexOf(':') + 1);
    return BLOCKING.has(verdict) || (verdict === 'confirm' && !approved);
  });
  const { status, blockedBy } = completed.data;
  if (status === 'success' || status === 'error') {
    if (blocking) return `completed ${status} though ${blocking} stopped it`;
    if (decided && decisions.length === 0) return `completed ${status} without a decision that let it run`;
    return undefined;
  }
  const byRule = status === 'blocked' && blockedBy !== undefined && !['unknown_tool', 'invalid'].includes(blockedBy);
  if (byRule && decisions.length > 0 && !blocking) return `blocked by ${blockedBy} though every decision let it run`;
  return undefined;
}
