import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { raceChannels, STOPPED } from './confirm-race.js';
import type { ConfirmChannel, ShadowContext, ShadowVerdict } from '../contracts/extensions.js';
import type { Redactor } from './redact.js';

/** How long a confirmation waits for a person when the rule that asked for it named no time. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 60_000;

/** A person's answer as the gate returns it: approved, or blocked with the reason. */
export type ConfirmOutcome = { approved: true } | { approved: false; reason: string };

/**
 * Asks a person to approve a call every rule let through: the channels that accept it race (first
 * answer wins, no answer in time is a decline). `pending` (the call's events not yet written) is
 * written with `confirm.requested` before anyone is asked, and `confirm.resolved` once answered.
 * A person is shown the call as the log records it: with the tree's secrets scrubbed.
 */
export async function askConfirmation(
  log: EventLog,
  channels: readonly ConfirmChannel[],
  { context, pending, redact }: { context: ShadowContext; pending: NewEvent[]; redact?: Redactor },
  verdict: ShadowVerdict,
): Promise<ConfirmOutcome> {
  const name = context.tool.name;
  const params = redact ? await redact.value(context.params) : context.params;
  const timeoutMs = verdict.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
  const expiresAt = new Date(Date.now() + timeoutMs).toISOString();
  const request = {
    callId: context.callId,
    tool: name,
    params,
    fingerprint: context.fingerprint,
    iface: context.iface,
    agentId: context.agentId,
    sessionId: context.sessionId,
    client: context.client,
    reason: verdict.reason,
    expiresAt,
  };
  const asked = channels.filter((channel) => channel.accepts?.(request) ?? true);
  if (asked.length === 0) {
    await flush(log, pending);
    const why = channels.map((channel) => channel.whyNot?.(request)).filter((reason) => reason !== undefined);
    const detail = why.length > 0 ? `: ${why.join('; ')}` : '';
    return {
      approved: false,
      reason: `tool "${name}" requires confirmation but no confirm channel is available${detail}`,
    };
  }
  pending.push(
    ...asked.map((channel): NewEvent => ({
      type: 'confirm.requested',
      data: { callId: context.callId, channel: channel.name, expiresAt },
    })),
  );
  await flush(log, pending);
  const answer = await raceChannels(asked, request, timeoutMs, context.signal);
  await log.append([
    {
      type: 'confirm.resolved',
      data: { callId: context.callId, channel: answer.channel, approved: answer.approved, by: answer.by },
    },
  ]);
  if (answer.approved) return { approved: true };
  const reason = answer.timedOut
    ? `tool "${name}": confirmation timed out after ${Math.round(timeoutMs / 1000)}s (no answer counts as declined)`
    : `tool "${name}": confirmation ${answer.channel === STOPPED ? 'abandoned: the call was stopped' : 'declined'}`;
  return { approved: false, reason };
}

/** Writes the call's events not written yet (emptying `pending`). */
export async function flush(log: EventLog, pending: NewEvent[]): Promise<void> {
  if (pending.length === 0) return;
  await log.append(pending.splice(0));
}
