import type { ConfirmAnswer, ConfirmChannel, ConfirmRequest, EventLog } from 'factorly';
import { UI_CHANNEL } from './approvals.js';
import { readLock, uiIsRunning } from './ui-lock.js';

/**
 * Asks through the web UI. Registered in every factorly process, it accepts a request only while a
 * UI is serving the project (its lock file names a live process): the UI shows the request from
 * the log, and a person's answer comes back as a `confirm.answered` event, which this channel
 * follows the log for. So a `factorly call` in a terminal, an MCP server and the UI itself all
 * wait on the same page; the first channel to answer wins.
 */
export class UiConfirmChannel implements ConfirmChannel {
  readonly name = UI_CHANNEL;
  readonly order = 20;

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

  whyNot(): string | undefined {
    if (this.accepts()) return undefined;
    return 'no factorly ui is running for this project (start `factorly ui` to approve calls on its Approvals page)';
  }

  async ask(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer> {
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
        if (
          event.type !== 'confirm.answered' ||
          event.data.callId !== request.callId ||
          event.data.channel !== UI_CHANNEL
        )
          return;
        settle(() => resolve({ approved: event.data.approved, by: event.data.by ?? UI_CHANNEL }));
      });
      if (settled) unsubscribe();
      if (signal.aborted) aborted();
      else signal.addEventListener('abort', aborted, { once: true });
    });
  }

  /** A `factorly call` without a terminal says where it waits: otherwise it would just hang. */
  private tellWhere(request: ConfirmRequest): void {
    const lock = readLock(this.stateDir);
    if (request.iface !== 'cli' || !lock || this.terminal()) return;
    const until = request.expiresAt ? `; declined at ${request.expiresAt.slice(11, 19)} UTC if nobody answers` : '';
    this.notices.write(
      `⏳ Tool "${request.tool}" waits for approval: approve or deny it at ${new URL('/approvals', lock.url).href} (the factorly ui of this project)${until}.\n`,
    );
  }
}
