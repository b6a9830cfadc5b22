import ms from 'ms';
import type {
  ShadowContext,
  ShadowRule,
  ShadowVerdict,
  StandingApprovals,
  StandingOffer,
  StandingState,
  STANDING_FACT,
} from 'factorly';
import { policyOf, selects } from './policy.js';
import type { StandingPolicy } from './policy-types.js';

const STANDING: typeof STANDING_FACT = 'standing';

/**
 * `shadow.confirm`: a person approves each call (the kernel asks once every other rule let it
 * through). With `confirm: {for: 30m}` or `{once_per: source}` the person may instead approve the
 * tool for the asking agent, or the script, for a while: the offer is recorded with the decision
 * (`facts.standing`), the person's choice as `approval.granted`, and this rule's history (the
 * kernel's fold of standing approvals) lets later calls in that scope through, recorded as `allow`
 * naming the approval. An approval covers its own tool's or script's calls only: the inner calls a
 * script makes are decided for their own tools.
 */
export class ConfirmRule implements ShadowRule<StandingState> {
  readonly name = 'confirm';
  readonly order = 20;
  readonly history: StandingApprovals['history'];

  constructor(private readonly standing: StandingApprovals) {
    this.history = standing.history;
  }

  evaluate(context: ShadowContext, state: StandingState): ShadowVerdict | undefined {
    const { tool } = context;
    const policy = policyOf(tool);
    if (!selects(policy.confirm, tool)) return undefined;
    const offer = policy.standing && offerFor(policy.standing, context);
    const approval = offer && this.standing.find(state, this.name, offer.scope, context.now);
    if (approval)
      return {
        decision: 'allow',
        reason: `tool "${tool.name}" approved ${approval.label} by ${approval.by ?? approval.channel} (standing approval ${approval.approvalId}, until ${new Date(approval.untilMs).toISOString()})`,
        facts: { approval: approval.approvalId },
      };
    return {
      decision: 'confirm',
      reason: `tool "${tool.name}" requires confirmation`,
      timeoutMs: policy.confirmTimeoutMs,
      ...(offer ? { facts: { [STANDING]: { ...offer } } } : {}),
    };
  }
}

/**
 * The standing approval a call may be given: the tool for this agent (`window`), or this script by
 * its SHA (`source`; none for a call that runs no script). Its `scope` names the tool too, so an
 * approval never carries over to another tool, or from a script to the calls it makes.
 */
function offerFor(policy: StandingPolicy, { tool, agentId, sourceSha }: ShadowContext): StandingOffer | undefined {
  const agent = policy.perAgent ? [agentId ?? null] : [];
  const limited = policy.perAgent && agentId !== undefined ? { agentId } : {};
  const { forMs } = policy;
  const long = ms(forMs, { long: true });
  if (policy.kind === 'window')
    return {
      kind: 'window',
      scope: JSON.stringify(['window', tool.name, ...agent]),
      forMs,
      label: `for ${long}`,
      ...limited,
    };
  if (sourceSha === undefined) return undefined;
  const scope = JSON.stringify(['source', tool.name, sourceSha, ...agent]);
  return { kind: 'source', scope, forMs, label: `for this script (${long})`, sha: sourceSha, ...limited };
}
