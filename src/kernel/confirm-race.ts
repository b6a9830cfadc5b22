import { messageOf } from '../base/errors.js';
import type { ConfirmChannel, ConfirmRequest } from '../contracts/extensions.js';

export interface ConfirmOutcome {
  /** The channel that answered, or `timeout`. */
  channel: string;
  approved: boolean;
  by?: string;
  timedOut: boolean;
}

/** The `channel` of the outcome when the call was stopped (its tree cancelled) while waiting for an answer. */
export const STOPPED = 'stopped';

/**
 * Asks every channel at once. The first answer wins and aborts the others; a channel that fails
 * does not count as an answer unless every channel failed; no answer within `timeoutMs` is a deny,
 * and so is the call being stopped (`stop`) before anyone answered.
 */
export function raceChannels(
  channels: readonly ConfirmChannel[],
  request: ConfirmRequest,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<ConfirmOutcome> {
  const controller = new AbortController();
  return new Promise((resolve) => {
    let settled = false;
    let failures = 0;
    const stopped = (): void => finish({ channel: STOPPED, approved: false, timedOut: false });
    const finish = (outcome: ConfirmOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop?.removeEventListener('abort', stopped);
      controller.abort();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ channel: 'timeout', approved: false, timedOut: true }), timeoutMs);
    if (stop?.aborted) return stopped();
    stop?.addEventListener('abort', stopped, { once: true });
    for (const channel of channels) {
      Promise.resolve()
        .then(() => channel.ask(request, controller.signal))
        .then(
          (answer) =>
            finish({ channel: channel.name, approved: answer.approved === true, by: answer.by, timedOut: false }),
          (error: unknown) => {
            failures += 1;
            if (failures === channels.length)
              finish({ channel: channel.name, approved: false, by: `failed: ${messageOf(error)}`, timedOut: false });
          },
        );
    }
  });
}
