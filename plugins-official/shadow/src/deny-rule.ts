import type { ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { selects } from './policy.js';

/** `shadow.deny`: the tool (or the listed sub-tools) may not be called at all. */
export class DenyRule implements ShadowRule {
  readonly name = 'deny';
  readonly order = 10;

  evaluate({ tool }: ShadowContext): ShadowVerdict | undefined {
    if (!selects(tool.shadow?.deny, tool)) return undefined;
    return { decision: 'deny', reason: `tool "${tool.name}" is denied by shadow policy` };
  }
}
