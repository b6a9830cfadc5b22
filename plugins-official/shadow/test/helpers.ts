import type { ConfirmAnswer, ConfirmChannel, ConfirmRequest, PluginDefinition } from 'factorly';
import type { MemoryEventLog } from 'factorly/events';
import type { Kernel } from 'factorly/testing';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { contribute, decisions } from '../../../test/helpers/shadow.js';
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

export { contribute, decisions, eventsOf };

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
