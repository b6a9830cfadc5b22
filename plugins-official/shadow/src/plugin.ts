import type { PluginDefinition } from 'factorly';
import { CliPromptChannel } from './cli-prompt.js';
import { ConfirmRule } from './confirm-rule.js';
import { DenyRule } from './deny-rule.js';
import { LoopRule } from './loop-rule.js';
import { MaxCallsRule } from './max-calls-rule.js';
import { RateLimitRule } from './rate-limit-rule.js';

/**
 * The official shadow rules, in the order the design fixes (deny 10, confirm 20, rate limit 30,
 * max inner calls 35, loop detection 40), and the CLI confirm prompt. One package: the rules share the policy lookup
 * and message helpers, and a user tunes them per tool in the config rather than by (un)installing.
 */
export const plugin: PluginDefinition = {
  id: 'shadow',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { rules: registrar.tokens.ShadowRules, channels: registrar.tokens.ConfirmChannels },
      init({ rules, channels }, context) {
        for (const rule of [new DenyRule(), new ConfirmRule(), new RateLimitRule(), new MaxCallsRule(), new LoopRule()]) rules.add(rule, context.pluginId);
        channels.add(new CliPromptChannel(), context.pluginId);
      },
    });
  },
};

export default plugin;
