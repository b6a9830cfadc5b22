import type { ConfirmAnswer, ConfirmChannel, ConfirmRequest, PluginDefinition, Recorded, ShadowRule } from 'factorly';
import { definePlugin } from '../../../src/plugins/define-plugin.js';
import type { MemoryEventLog } from '../../../src/events/memory-log.js';
import type { Kernel } from '../../../src/kernel/kernel.js';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as shadowPlugin } from '../src/plugin.js';

/** A kernel with the cli provider, the shadow plugin and any extra plugins, over an in-memory log. */
export async function shadowKernel(
  yaml: string,
  extra: PluginDefinition[] = [],
): Promise<{ kernel: Kernel; log: MemoryEventLog }> {
  return startTestKernel(yaml, [shadowPlugin, ...extra]);
}

/** The events of one call, as `type` or `type:decision` strings, in log order. */
export async function storyOf(log: MemoryEventLog, callId: string): Promise<string[]> {
  return (await log.readCall(callId)).map((event) =>
    event.type === 'shadow.decided' ? `${event.type}:${event.data.rule}:${event.data.decision}` : event.type,
  );
}

export async function decisions(log: MemoryEventLog, callId: string): Promise<Recorded<'shadow.decided'>['data'][]> {
  return (await log.readCall(callId))
    .filter((e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided')
    .map((e) => e.data);
}

export { eventsOf };

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

/** A channel that answers from a script of answers (`undefined` = never answers) and remembers what it was asked. */
export class ScriptedChannel implements ConfirmChannel {
  readonly asked: ConfirmRequest[] = [];
  aborted = 0;

  constructor(
    readonly name: string,
    private readonly answers: (ConfirmAnswer | undefined)[],
    private readonly delayMs = 0,
  ) {}

  ask(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer> {
    this.asked.push(request);
    const answer = this.answers.shift();
    return new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        this.aborted += 1;
      });
      if (answer) setTimeout(() => resolve(answer), this.delayMs);
    });
  }
}
