import type { HIGHLIGHT_FACT, ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { policyOf } from './policy.js';

// Official plugins import only types from the SDK at run time: the key is written out, and checked against it.
const HIGHLIGHT: typeof HIGHLIGHT_FACT = 'highlight';

/**
 * `shadow.log_params`: the listed params are shown with the call in the log (`factorly logs`, the
 * web UI). The names are recorded with the call (`shadow.decided` facts), so what a call highlights
 * is decided when it is made, not by the config in force when the log is read; the values shown are
 * the params as the log keeps them (scrubbed, capped). It asks first, before any rule can block, so
 * blocked and unconfirmed calls are highlighted too. Says nothing when no listed param was sent.
 */
export class LogParamsRule implements ShadowRule {
  readonly name = 'log-params';
  readonly order = 5;

  evaluate({ tool, params }: ShadowContext): ShadowVerdict | undefined {
    // Top-level names only: a dotted name is a param called that, not a path into one.
    const listed = new Set(policyOf(tool).logParams);
    const names = [...listed].filter((name) => Object.hasOwn(params, name));
    if (names.length === 0) return undefined;
    return {
      decision: 'allow',
      reason: `shows ${names.join(', ')} with the call in the log`,
      facts: { [HIGHLIGHT]: names },
    };
  }
}
