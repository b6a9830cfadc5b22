import type { ConfirmChannel, PluginDefinition, Recorded, ShadowRule } from 'factorly';
import { definePlugin } from 'factorly';
import type { EventLog } from 'factorly/events';

/** Contributes rules and channels from a test. */
export function contribute(id: string, parts: { rules?: ShadowRule[]; channels?: ConfirmChannel[] }): PluginDefinition {
  return definePlugin({
    id,
    apiVersion: '1',
    register(reg) {
      reg.registerInit({
        deps: { rules: reg.tokens.ShadowRules, channels: reg.tokens.ConfirmChannels },
        init({ rules, channels }, ctx) {
          for (const rule of parts.rules ?? []) rules.add(rule, ctx.pluginId);
          for (const channel of parts.channels ?? []) channels.add(channel, ctx.pluginId);
        },
      });
    },
  });
}

/** The shadow decisions of one call, in log order. */
export async function decisions(
  log: Pick<EventLog, 'readCall'>,
  callId: string,
): Promise<Recorded<'shadow.decided'>['data'][]> {
  return (await log.readCall(callId))
    .filter((e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided')
    .map((e) => e.data);
}
