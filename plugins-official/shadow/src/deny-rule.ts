import type { ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { policyOf, selects } from './policy.js';

/** `shadow.deny`: the tool (or the listed sub-tools) may not be called at all. */
export class DenyRule implements ShadowRule {
  readonly name = 'deny';
  readonly order = 10;

  evaluate({ tool }: ShadowContext): ShadowVerdict | undefined {
    if (!selects(policyOf(tool).deny, tool)) return undefined;
    return { decision: 'deny', reason: `tool "${tool.name}" is denied by shadow policy` };
  }
}
