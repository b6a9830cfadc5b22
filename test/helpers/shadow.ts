import type { ConfirmChannel, PersonChannel, PluginDefinition, Recorded, ShadowRule } from 'factorly';
import { definePlugin } from 'factorly';
import type { EventLog } from 'factorly/events';

/** Contributes rules, confirm channels (plugin API 1) and person channels from a test. */
export function contribute(
  id: string,
  parts: { rules?: ShadowRule[]; channels?: ConfirmChannel[]; people?: PersonChannel[] },
): PluginDefinition {
  return definePlugin({
    id,
    apiVersion: '1',
    register(reg) {
      reg.registerInit({
        deps: {
          rules: reg.tokens.ShadowRules,
          channels: reg.tokens.ConfirmChannels,
          people: reg.tokens.PersonChannels,
        },
        init({ rules, channels, people }, ctx) {
          for (const rule of parts.rules ?? []) rules.add(rule, ctx.pluginId);
          for (const channel of parts.channels ?? []) channels.add(channel, ctx.pluginId);
          for (const person of parts.people ?? []) people.add(person, ctx.pluginId);
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
