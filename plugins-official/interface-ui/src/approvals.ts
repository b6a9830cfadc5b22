import type { AskQuestion, EventLog, JsonValue, Params, Recorded, StandingChoice, StandingKind } from 'factorly';

/** What every request waiting on the page shows: the call that asks, who made it, when. */
interface Waiting {
  callId: string;
  tool: string;
  iface: string;
  agentId?: string;
  requestedAt: string;
  /** When it is declined if nobody answers (a confirmation says since `confirm.requested` v2). */
  expiresAt?: string;
}

/** A call a UI channel was asked to confirm and nobody has answered yet. */
export interface PendingConfirm extends Waiting {
  kind: 'confirm';
  params: Params;
  reason: string;
  /** Standing approvals the rule offers besides this call (`shadow.confirm: {for: 30m}`). */
  standing: Pick<StandingChoice, 'kind' | 'label'>[];
}

/** A question (`factorly.ask`) the UI channel was asked and nobody has answered yet. */
export interface PendingQuestion extends Waiting {
  kind: 'question';
  question: AskQuestion;
  /** The key the answer is sealed to: only the asking process opens it. */
  replyKey: string;
  /** When the question stops waiting. */
  expiresAt: string;
}

export type PendingApproval = PendingConfirm | PendingQuestion;

/** Checks a typed answer against its question and seals it to the question's key (`HostServices.sealAnswer`). */
export type AnswerSealer = (
  question: AskQuestion,
  replyKey: string,
  given: string,
) => { ok: true; sealed: string } | { ok: false; message: string };

/** Requests older than this are not shown after a restart (their caller has long given up). */
const RECOVER_WINDOW_MS = 15 * 60_000;

export const UI_CHANNEL = 'ui';

/**
 * What ends a request: its answer or outcome, or its call ending however it ends (completed,
 * cancelled, or `call.interrupted` when its process died without a word).
 */
const ENDS = new Set([
  'confirm.answered',
  'confirm.resolved',
  'ask.answered',
  'ask.resolved',
  'call.completed',
  'call.interrupted',
]);

/**
 * What waits for the UI, kept from the log: a `confirm.requested` for the `ui` channel, or an
 * `ask.requested` naming it, adds one (from this process or any other writing the same log); its
 * answer (`confirm.answered`, `ask.answered`), outcome (`confirm.resolved`, `ask.resolved`) or its
 * call's end (`call.completed`, `call.interrupted`) removes it. Answering appends the answer, which
 * the asking process's channel is waiting for.
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
    const answered = new Set<string>();
    const asked: Recorded[] = [];
    for await (const event of this.log.read({ reverse: true })) {
      if (now - Date.parse(event.at) > RECOVER_WINDOW_MS) break;
      if (ENDS.has(event.type)) answered.add((event.data as { callId: string }).callId);
      else if (asksUi(event) && !answered.has((event.data as { callId: string }).callId)) asked.push(event);
    }
    for (const event of asked.reverse()) await this.apply(event);
  }

  /** Folds one event in; true when the pending set changed. */
  async apply(event: Recorded): Promise<boolean> {
    if (asksUi(event)) {
      const pending = await this.describe(event);
      if (!pending) return false;
      this.pending.set(pending.callId, pending);
    } else if (ENDS.has(event.type)) {
      if (!this.pending.delete((event.data as { callId: string }).callId)) return false;
    } else {
      return false;
    }
    this.changed();
    return true;
  }

  /**
   * Records a person's answer to a confirmation, approved with one of the standing approvals offered
   * when `standing` names it; false when it was already answered, never pending, or that was not offered.
   */
  async answer(callId: string, approved: boolean, standing?: StandingKind): Promise<boolean> {
    const pending = this.pending.get(callId);
    if (pending?.kind !== 'confirm') return false;
    if (standing !== undefined && !pending.standing.some((choice) => choice.kind === standing)) return false;
    const data = { callId, channel: UI_CHANNEL, approved, by: 'ui', ...(approved && standing ? { standing } : {}) };
    await this.log.append([{ type: 'confirm.answered', data }]);
    this.settled(callId);
    return true;
  }

  /**
   * Records a person's reply to a question: the answer typed (`accept`), checked and sealed first, or
   * the question dismissed (`cancel`). `gone` when nothing waits under `callId`; `problem` when the
   * answer does not fit (the question stays, to be answered again).
   */
  async reply(
    callId: string,
    reply: { action: 'accept'; given: string } | { action: 'cancel' },
    seal: AnswerSealer,
  ): Promise<{ done: true } | { gone: true } | { problem: string }> {
    const pending = this.pending.get(callId);
    if (pending?.kind !== 'question') return { gone: true };
    let sealed: string | undefined;
    if (reply.action === 'accept') {
      const checked = seal(pending.question, pending.replyKey, reply.given);
      if (!checked.ok) return { problem: checked.message };
      sealed = checked.sealed;
    }
    const data = { callId, channel: UI_CHANNEL, action: reply.action, sealed, by: 'ui' };
    await this.log.append([{ type: 'ask.answered', data }]);
    this.settled(callId);
    return { done: true };
  }

  /** Gone at once for the page the answer redirects to; the event, when the feed reads it, changes nothing. */
  private settled(callId: string): void {
    this.pending.delete(callId);
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private async describe(event: Recorded): Promise<PendingApproval | undefined> {
    const { callId } = event.data as { callId: string };
    const events = await this.log.readCall(callId);
    const requested = events.find((e) => e.type === 'call.requested');
    if (!requested || requested.type !== 'call.requested') return undefined;
    if (events.some((e) => ENDS.has(e.type) && e.seq > event.seq)) return undefined;
    const { tool, params, iface, agentId } = requested.data;
    const waiting = { callId, tool, iface, agentId, requestedAt: event.at };
    if (event.type === 'ask.requested') {
      const { question, replyKey, timeoutMs } = event.data;
      const expiresAt = new Date(Date.parse(event.at) + timeoutMs).toISOString();
      return { kind: 'question', ...waiting, question, replyKey, expiresAt };
    }
    const confirm = events.find((e) => e.type === 'shadow.decided' && e.data.decision === 'confirm');
    const decided = confirm?.type === 'shadow.decided' ? confirm.data : undefined;
    const reason = decided?.reason ?? 'the tool asks before each call';
    const standing = offeredIn(decided?.facts);
    const timeoutMs = event.type === 'confirm.requested' ? event.data.timeoutMs : undefined;
    const expiresAt =
      typeof timeoutMs === 'number' ? new Date(Date.parse(event.at) + timeoutMs).toISOString() : undefined;
    return {
      kind: 'confirm',
      ...waiting,
      params: params as Record<string, JsonValue>,
      reason,
      standing,
      ...(expiresAt ? { expiresAt } : {}),
    };
  }
}

/** The standing approval a confirm decision offers (its `standing` fact), to show; the asking process checks the answer. */
function offeredIn(facts: Record<string, JsonValue> | undefined): PendingConfirm['standing'] {
  const offer = facts?.standing;
  if (typeof offer !== 'object' || offer === null || Array.isArray(offer)) return [];
  const { kind, label } = offer;
  return (kind === 'window' || kind === 'source') && typeof label === 'string' ? [{ kind, label }] : [];
}

/** A request the UI channel was asked (a confirmation recorded for it, a question naming it). */
function asksUi(event: Recorded): boolean {
  if (event.type === 'confirm.requested') return event.data.channel === UI_CHANNEL;
  return event.type === 'ask.requested' && event.data.channels.includes(UI_CHANNEL);
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
