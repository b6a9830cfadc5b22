import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import type { ShadowContext, ShadowVerdict } from '../contracts/extensions.js';
import type { ConfirmPrompt, PersonChannel, PersonOutcome } from '../contracts/person.js';
import { askPerson, STOPPED } from '../contracts/person-race.js';
import type { Redactor } from './redact.js';

/** How long a confirmation waits for a person when the rule that asked for it named no time. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 60_000;

/** A person's answer as the gate returns it: approved, or blocked with the reason. */
export type ConfirmOutcome = { approved: true } | { approved: false; reason: string };

/**
 * Asks a person to approve a call every rule let through, through the ask-a-person race
 * (`askPerson`: first answer wins, no answer in time is a decline). `pending` (the call's events not
 * yet written) is written with one `confirm.requested` per channel before anyone is asked, and
 * `confirm.resolved` once answered. A person is shown the call as the log records it: with the tree's
 * secrets scrubbed.
 */
export async function askConfirmation(
  log: EventLog,
  channels: readonly PersonChannel[],
  { context, pending, redact }: { context: ShadowContext; pending: NewEvent[]; redact?: Redactor },
  verdict: ShadowVerdict,
): Promise<ConfirmOutcome> {
  const { callId, tool } = context;
  const request: ConfirmPrompt = {
    kind: 'confirm',
    callId,
    tool: tool.name,
    params: redact ? await redact.value(context.params) : context.params,
    fingerprint: context.fingerprint,
    iface: context.iface,
    agentId: context.agentId,
    sessionId: context.sessionId,
    client: context.client,
    reason: verdict.reason,
  };
  const timeoutMs = verdict.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
  const answer = await askPerson(channels, request, {
    timeoutMs,
    signal: context.signal,
    record: {
      asked: async (names) => {
        pending.push(...names.map((channel): NewEvent => ({ type: 'confirm.requested', data: { callId, channel } })));
        await flush(log, pending);
      },
      resolved: async ({ channel, action, by }) => {
        if (action === 'unreachable') return;
        await log.append([{ type: 'confirm.resolved', data: { callId, channel, approved: action === 'accept', by } }]);
      },
    },
  });
  return answer.action === 'accept'
    ? { approved: true }
    : { approved: false, reason: refusal(tool.name, answer, timeoutMs) };
}

function refusal(name: string, answer: PersonOutcome, timeoutMs: number): string {
  if (answer.action === 'unreachable')
    return `tool "${name}" requires confirmation but no confirm channel is available${answer.by ? `: ${answer.by}` : ''}`;
  if (answer.action === 'timeout')
    return `tool "${name}": confirmation timed out after ${Math.round(timeoutMs / 1000)}s (no answer counts as declined)`;
  return `tool "${name}": confirmation ${answer.channel === STOPPED ? 'abandoned: the call was stopped' : 'declined'}`;
}

/** Writes the call's events not written yet (emptying `pending`). */
export async function flush(log: EventLog, pending: NewEvent[]): Promise<void> {
  if (pending.length === 0) return;
  await log.append(pending.splice(0));
}
