import type { ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { policyOf, selects } from './policy.js';

/** `shadow.confirm`: a person approves each call (the kernel asks once every other rule let it through). */
export class ConfirmRule implements ShadowRule {
  readonly name = 'confirm';
  readonly order = 20;

  evaluate({ tool }: ShadowContext): ShadowVerdict | undefined {
    const policy = policyOf(tool);
    if (!selects(policy.confirm, tool)) return undefined;
    return {
      decision: 'confirm',
      reason: `tool "${tool.name}" requires confirmation`,
      timeoutMs: policy.confirmTimeoutMs,
    };
  }
}
