import type { PluginDefinition } from 'factorly';
import { SHADOW_BLOCK_SCHEMA, checkShadowBlock } from './agent-keys.js';
import { AgentAccessRule } from './agent-access-rule.js';
import { AgentRateLimitRule } from './agent-rate-limit-rule.js';
import { AgentRuleBook } from './agent-rules.js';
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

/**
 * The official shadow rules, in the order the design fixes (log params 5, deny 10, agent access 15,
 * confirm 20, rate limit 30, agent rate limit 32, max inner calls 35, loop detection 40), and the
 * terminal prompt (a person channel: confirmations and questions). One package: the rules share the policy lookup and message helpers, and a
 * user tunes them in the config rather than by (un)installing.
 */
export const plugin: PluginDefinition = {
  id: 'shadow',
  apiVersion: '1',
  config: {
    // The top-level block: rules per agent.
    key: 'shadow',
    schema: SHADOW_BLOCK_SCHEMA,
    check: checkShadowBlock,
    // Each tool's `shadow:` block: deny, confirm, rate_limit, scope, max_calls, log_params, timeout, loop.
    shadow: SHADOW_KEYS,
  },
  register(registrar) {
    const book = new AgentRuleBook();
    const policies: ShadowPolicies = {
      of: policyOf,
      denies: (tool, agentId) => selects(policyOf(tool).deny, tool) || book.refusal(tool.name, agentId) !== undefined,
      confirms: (tool) => selects(policyOf(tool).confirm, tool),
    };
    registrar.provide(ShadowTokens.Policies, policies);
    registrar.provide(ShadowTokens.AgentRules, { contribute: (source, agents) => book.contribute(source, agents) });
    registrar.registerInit({
      deps: {
        rules: registrar.tokens.ShadowRules,
        channels: registrar.tokens.PersonChannels,
        standing: registrar.tokens.StandingApprovals,
      },
      init({ rules, channels, standing }, context) {
        book.configure(context.config);
        context.onConfig((block) => book.configure(block));
        for (const rule of [
          new LogParamsRule(),
          new DenyRule(),
          new AgentAccessRule(book),
          new ConfirmRule(standing),
          new RateLimitRule(),
          new AgentRateLimitRule(book),
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
