import type { ShadowRule } from '../../src/contracts/extensions.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';

/** A plugin that adds one shadow rule (`test-rule` unless named). */
export function rulePlugin(rule: ShadowRule, id = 'test-rule') {
  return definePlugin({
    id,
    apiVersion: '1',
    register(reg) {
      reg.registerInit({
        deps: { rules: reg.tokens.ShadowRules },
        init: ({ rules }, ctx) => rules.add(rule, ctx.pluginId),
      });
    },
  });
}
