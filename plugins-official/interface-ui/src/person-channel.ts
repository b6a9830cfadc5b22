import type { EventLog, PersonAnswer, PersonChannel, PersonRequest, Recorded } from 'factorly';
import { UI_CHANNEL } from './approvals.js';
import { uiIsRunning } from './ui-lock.js';

/**
 * Asks through the web UI. Registered in every factorly process, it accepts a request only while a
 * UI is serving the project (its lock file names a live process): the UI shows the request from
 * the log, and a person's answer comes back as an event this channel follows the log for
 * (`confirm.answered` for a confirmation; `ask.answered`, the answer sealed to the question's
 * `replyKey`, for a question). So a `factorly call` in a terminal, an MCP server and the UI itself
 * all wait on the same page; the first channel to answer wins.
 */
export class UiPersonChannel implements PersonChannel {
  readonly name = UI_CHANNEL;
  readonly order = 20;
  readonly kinds = ['confirm', 'question'] as const;

  constructor(
    private readonly stateDir: string,
    private readonly openLog: () => EventLog,
  ) {}

  accepts(): boolean {
    return uiIsRunning(this.stateDir);
  }

  async ask(request: PersonRequest, signal: AbortSignal): Promise<PersonAnswer> {
    const log = this.openLog();
    const { seq } = await log.head();
    return new Promise((resolve, reject) => {
      let settled = false;
      let unsubscribe: (() => void) | undefined;
      const settle = (finish: () => void): void => {
        if (settled) return;
        settled = true;
        unsubscribe?.();
        signal.removeEventListener('abort', aborted);
        finish();
      };
      const aborted = (): void => settle(() => reject(new DOMException('answered elsewhere', 'AbortError')));
      // The request was recorded before channels are asked, so its answer can only come after `seq`.
      unsubscribe = log.subscribe(seq + 1, (event) => {
        const answer = answerIn(event, request);
        if (answer) settle(() => resolve(answer));
      });
      if (settled) unsubscribe();
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
  }
}

/** The UI's answer to `request`, if `event` is one. */
function answerIn(event: Recorded, request: PersonRequest): PersonAnswer | undefined {
  if (request.kind === 'confirm' && event.type === 'confirm.answered') {
    const { callId, channel, approved, by, standing } = event.data;
    if (callId !== request.callId || channel !== UI_CHANNEL) return undefined;
    return {
      action: approved ? 'accept' : 'decline',
      by: by ?? UI_CHANNEL,
      ...(approved && standing ? { standing } : {}),
    };
  }
  if (request.kind === 'question' && event.type === 'ask.answered') {
    const { callId, channel, action, sealed, by } = event.data;
    if (callId !== request.callId || channel !== UI_CHANNEL) return undefined;
    return { action, ...(sealed === undefined ? {} : { sealed }), by: by ?? UI_CHANNEL };
  }
  return undefined;
}
