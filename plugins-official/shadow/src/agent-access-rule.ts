import type { ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import type { AgentRuleBook } from './agent-rules.js';

/**
 * `shadow.agents.<agent>.deny` / `.allow` and a named token's `tools`: what one agent may call. A
 * call without an agent (the CLI) is not its business; an inner call of a script is its agent's.
 */
export class AgentAccessRule implements ShadowRule {
  readonly name = 'agent-access';
  readonly order = 15;

  constructor(private readonly book: AgentRuleBook) {}

  evaluate({ tool, agentId }: ShadowContext): ShadowVerdict | undefined {
    const refusal = this.book.refusal(tool.name, agentId);
    return refusal ? { decision: 'deny', reason: refusal.reason, facts: { rules: refusal.entry.where } } : undefined;
  }
}
