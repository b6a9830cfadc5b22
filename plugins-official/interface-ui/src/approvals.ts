import type { EventLog, JsonValue, Params, Recorded } from 'factorly';

/** A confirmation a UI channel was asked for and nobody has answered yet. */
export interface PendingApproval {
  callId: string;
  tool: string;
  params: Params;
  iface: string;
  agentId?: string;
  reason: string;
  requestedAt: string;
  /** When the call is declined if nobody answers (recorded with the request since `confirm.requested` v2). */
  expiresAt?: string;
}

/** Requests older than this are not shown after a restart (their caller has long given up). */
const RECOVER_WINDOW_MS = 15 * 60_000;

export const UI_CHANNEL = 'ui';

/** What ends a pending request: an answer from any channel, or the call itself ending, however it ended. */
const ENDS = new Set(['confirm.resolved', 'confirm.answered', 'call.completed', 'call.interrupted']);

/**
 * The confirmations waiting for the UI, kept from the log: a `confirm.requested` for the `ui`
 * channel adds one (from this process or any other writing the same log); an answer from any
 * channel, or the call ending any way (completed, timed out, cancelled, interrupted when its
 * process died), removes it. Answering appends `confirm.answered`, which the asking process's
 * channel is waiting for.
 */
export class Approvals {
  private readonly pending = new Map<string, PendingApproval>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly log: EventLog) {}

  list(): PendingApproval[] {
    return [...this.pending.values()].sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  }

  get(callId: string): PendingApproval | undefined {
    return this.pending.get(callId);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rebuilds what is still pending from the recent end of the log (a restarted UI). */
  async recover(now = Date.now()): Promise<void> {
    const ended = new Set<string>();
    const asked: Recorded[] = [];
    for await (const event of this.log.read({ reverse: true })) {
      if (now - Date.parse(event.at) > RECOVER_WINDOW_MS) break;
      if (ENDS.has(event.type)) ended.add((event.data as { callId: string }).callId);
      else if (event.type === 'confirm.requested' && event.data.channel === UI_CHANNEL && !ended.has(event.data.callId))
        asked.push(event);
    }
    for (const event of asked.reverse()) await this.apply(event);
  }

  /** Folds one event in; true when the pending set changed. */
  async apply(event: Recorded): Promise<boolean> {
    if (event.type === 'confirm.requested' && event.data.channel === UI_CHANNEL) {
      const pending = await this.describe(event);
      if (!pending) return false;
      this.pending.set(pending.callId, pending);
    } else if (ENDS.has(event.type)) {
      if (!this.pending.delete((event.data as { callId: string }).callId)) return false;
    } else {
      return false;
    }
    for (const listener of this.listeners) listener();
    return true;
  }

  /** Records a person's answer; false when the request was already answered or never pending. */
  async answer(callId: string, approved: boolean): Promise<boolean> {
    if (!this.pending.has(callId)) return false;
    await this.log.append([{ type: 'confirm.answered', data: { callId, channel: UI_CHANNEL, approved, by: 'ui' } }]);
    // Gone at once for the page this answer redirects to; the event, when the feed reads it, changes nothing.
    this.pending.delete(callId);
    for (const listener of this.listeners) listener();
    return true;
  }

  private async describe(asked: Recorded<'confirm.requested'>): Promise<PendingApproval | undefined> {
    const { callId, expiresAt } = asked.data;
    const events = await this.log.readCall(callId);
    const requested = events.find((event) => event.type === 'call.requested');
    if (!requested || requested.type !== 'call.requested') return undefined;
    if (events.some((event) => ENDS.has(event.type))) return undefined;
    const confirm = events.find((event) => event.type === 'shadow.decided' && event.data.decision === 'confirm');
    const reason = confirm?.type === 'shadow.decided' ? confirm.data.reason : 'the tool asks before each call';
    const { tool, params, iface, agentId } = requested.data;
    return {
      callId,
      tool,
      params: params as Record<string, JsonValue>,
      iface,
      agentId,
      reason,
      requestedAt: asked.at,
      ...(typeof expiresAt === 'string' ? { expiresAt } : {}),
    };
  }
}

/** How often the UI looks for callers that died while their request waits (cheap: the log's open calls). */
const REAP_EVERY_MS = 2_000;

/**
 * While anything is pending, asks the host every couple of seconds to mark the calls of processes
 * that ended as interrupted (`recoverInterrupted`): a caller killed with SIGKILL records nothing, and
 * its `call.interrupted` is what takes its card away. Stops when `signal` aborts.
 */
export function reapWhilePending(
  approvals: Approvals,
  recoverInterrupted: () => Promise<unknown>,
  signal: AbortSignal,
  onError: (error: unknown) => void,
): void {
  let running = false;
  const timer = setInterval(() => {
    if (running || approvals.list().length === 0) return;
    running = true;
    recoverInterrupted()
      .catch(onError)
      .finally(() => (running = false));
  }, REAP_EVERY_MS);
  timer.unref();
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}
