import type { EventLog, PersonAnswer, PersonChannel, PersonRequest, Recorded } from 'factorly';
import { UI_CHANNEL } from './approvals.js';
import { readLock, uiIsRunning } from './ui-lock.js';

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
    /** Where a waiting `factorly call` tells its person where to answer. */
    private readonly notices: NodeJS.WritableStream = process.stderr,
    /** Whether the process has a terminal, where the CLI prompt asks instead (a line here would cut into it). */
    private readonly terminal: () => boolean = () => process.stdin.isTTY === true,
  ) {}

  accepts(): boolean {
    return uiIsRunning(this.stateDir);
  }

  /** For a confirmation nobody can answer (a question's own refusal already says to start the UI). */
  whyNot(request?: PersonRequest): string | undefined {
    if (this.accepts() || request?.kind === 'question') return undefined;
    return 'no factorly ui is running for this project (start `factorly ui` to approve calls on its Approvals page)';
  }

  async ask(request: PersonRequest, signal: AbortSignal): Promise<PersonAnswer> {
    if (!signal.aborted) this.tellWhere(request);
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

  /** A `factorly call` without a terminal says where it waits: otherwise it would just hang. */
  private tellWhere(request: PersonRequest): void {
    const lock = readLock(this.stateDir);
    if (request.iface !== 'cli' || !lock || this.terminal()) return;
    const what = request.kind === 'confirm' ? 'waits for approval: approve or deny it' : 'asks a question: answer it';
    const until = request.expiresAt
      ? `; ${request.kind === 'confirm' ? 'declined' : 'it stops waiting'} at ${new Date(request.expiresAt).toISOString().slice(11, 19)} UTC if nobody answers`
      : '';
    this.notices.write(
      `⏳ Tool "${request.tool}" ${what} at ${new URL('/approvals', lock.url).href} (the factorly ui of this project)${until}.\n`,
    );
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
