import type { PluginDefinition } from 'factorly';
import { ShadowTokens, type ShadowPolicies } from './api.js';
import { CliPromptChannel } from './cli-prompt.js';
import { ConfirmRule } from './confirm-rule.js';
import { DenyRule } from './deny-rule.js';
import { LogParamsRule } from './log-params-rule.js';
import { LoopRule } from './loop-rule.js';
import { MaxCallsRule } from './max-calls-rule.js';
import { policyOf, selects } from './policy.js';
import { RateLimitRule } from './rate-limit-rule.js';
import { SHADOW_KEYS } from './shadow-keys.js';

/** The policies the rules read, for other plugins (an MCP interface) to show: `ShadowTokens.Policies`. */
const policies: ShadowPolicies = {
  of: policyOf,
  denies: (tool) => selects(policyOf(tool).deny, tool),
  confirms: (tool) => selects(policyOf(tool).confirm, tool),
};

/**
 * The official shadow rules, in the order the design fixes (log params 5, deny 10, confirm 20, rate
 * limit 30, max inner calls 35, loop detection 40), and the terminal prompt (a person channel: confirmations and questions). One package: the rules share the policy lookup
 * and message helpers, and a user tunes them per tool in the config rather than by (un)installing.
 */
export const plugin: PluginDefinition = {
  id: 'shadow',
  apiVersion: '1',
  // Each tool's `shadow:` block: deny, confirm, rate_limit, scope, max_calls, log_params, timeout, loop.
  config: { shadow: SHADOW_KEYS },
  register(registrar) {
    registrar.provide(ShadowTokens.Policies, policies);
    registrar.registerInit({
      deps: { rules: registrar.tokens.ShadowRules, channels: registrar.tokens.PersonChannels },
      init({ rules, channels }, context) {
        for (const rule of [
          new LogParamsRule(),
          new DenyRule(),
          new ConfirmRule(),
          new RateLimitRule(),
          new MaxCallsRule(),
          new LoopRule(),
        ])
          rules.add(rule, context.pluginId);
        channels.add(new CliPromptChannel(), context.pluginId);
      },
    });
  },
};

export default plugin;
