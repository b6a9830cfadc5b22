import { BLOCKING_DECISIONS, type Decision } from '../events/catalog.js';
import { canonicalJson, sha256Hex } from '../events/hash.js';
import type { ShadowContext, ShadowRule, ShadowVerdict } from '../contracts/extensions.js';
import type { RuleState } from './shadow-history.js';
import { ASYNC, failed, runRule, runRuleNow } from './shadow-rule-run.js';

/** The decisions that refuse a call: the chain stops at the first of them. */
export const BLOCKING: ReadonlySet<Decision> = new Set(BLOCKING_DECISIONS);

export interface Decided {
  rule: ShadowRule;
  verdict: ShadowVerdict;
}

/** Each history rule's state (or why its fold broke); rules without history have none. */
export type RuleStates = ReadonlyMap<ShadowRule, RuleState>;

const NO_STATES: RuleStates = new Map();

interface Ask {
  rule: ShadowRule;
  state: unknown;
}

/**
 * The rule chain, the one place that says how rules decide together: asked in order, each with its
 * state; a rule whose fold broke is not asked, it fails (closed unless it declares `failOpen`); a rule
 * with nothing to say is skipped; the first blocking verdict ends the chain. It yields each rule to
 * ask and takes its verdict back, so the same walk serves the gate (awaiting each rule, or inside a
 * write where nothing can be awaited) and the recheck of recorded decisions.
 */
function* walk(rules: readonly ShadowRule[], states: RuleStates): Generator<Ask, Decided[], ShadowVerdict | undefined> {
  const decided: Decided[] = [];
  for (const rule of rules) {
    const state = states.get(rule);
    const verdict =
      state && 'broken' in state
        ? failed(rule, 'could not read its state', state.broken)
        : yield { rule, state: state?.state };
    if (!verdict) continue;
    decided.push({ rule, verdict });
    if (BLOCKING.has(verdict.decision)) break;
  }
  return decided;
}

/** The chain's decisions, each rule awaited within its time budget (see `runRule`). */
export async function decideChain(
  rules: readonly ShadowRule[],
  context: ShadowContext,
  states: RuleStates = NO_STATES,
): Promise<Decided[]> {
  const steps = walk(rules, states);
  let step = steps.next();
  while (!step.done) step = steps.next(await runRule(step.value.rule, context, step.value.state));
  return step.value;
}

/** The chain decided synchronously (inside a write); undefined when a rule answers with a promise. */
export function decideChainNow(
  rules: readonly ShadowRule[],
  context: ShadowContext,
  states: RuleStates = NO_STATES,
): Decided[] | undefined {
  const steps = walk(rules, states);
  let step = steps.next();
  while (!step.done) {
    const verdict = runRuleNow(step.value.rule, context, step.value.state);
    if (verdict === ASYNC) return undefined;
    step = steps.next(verdict);
  }
  return step.value;
}

/** Identical calls share a fingerprint: sha256 of the tool name and the RFC 8785 canonical JSON of its params. */
export function fingerprintOf(tool: string, params: unknown): string {
  return sha256Hex(`${tool}:${canonicalJson(params)}`);
}
