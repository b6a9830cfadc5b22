import type { NewEvent } from '../events/envelope.js';
import type { JsonValue, StandingOffer } from '../events/catalog.js';
import { sha256Hex } from '../events/hash.js';
import type { EventLog } from '../events/log.js';
import { standingOfferIn } from '../events/projections/standing.js';
import type { ShadowContext, ShadowVerdict } from './extensions.js';
import type { ConfirmPrompt, PersonChannel, PersonOutcome } from './person.js';
import { askPerson, STOPPED } from './person-race.js';

/** How long a confirmation waits for a person when the rule that asked for it named no time. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 60_000;

/** A person's answer as the gate returns it: approved, or blocked with the reason. */
export type ConfirmOutcome = { approved: true } | { approved: false; reason: string };

/** What confirming a call needs from the gate: the call as the rules saw it, its events not yet written, its scrubber. */
export interface ConfirmParts {
  context: ShadowContext;
  pending: NewEvent[];
  /** Scrubs the call tree's secrets from what a person is shown. */
  scrub?: <T extends JsonValue>(value: T) => Promise<T>;
}

/**
 * Asks a person to approve a call every rule let through, through the ask-a-person race
 * (`askPerson`: first answer wins, no answer in time is a decline). `pending` (the call's events not
 * yet written) is written with one `confirm.requested` per channel before anyone is asked, and
 * `confirm.resolved` once answered. A person is shown the call as the log records it: with the tree's
 * secrets scrubbed. When the verdict offers a standing approval (`STANDING_FACT`) the person may
 * choose it; `approval.granted` then records it beside the answer, for the rule's fold to honour.
 */
export async function askConfirmation(
  log: EventLog,
  channels: readonly PersonChannel[],
  { context, pending, scrub }: ConfirmParts,
  { rule, verdict }: { rule: string; verdict: ShadowVerdict },
): Promise<ConfirmOutcome> {
  const { callId, tool } = context;
  const timeoutMs = verdict.timeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS;
  const offer = standingOfferIn(verdict.facts);
  const request: ConfirmPrompt = {
    kind: 'confirm',
    callId,
    tool: tool.name,
    params: scrub ? await scrub(context.params) : context.params,
    fingerprint: context.fingerprint,
    iface: context.iface,
    agentId: context.agentId,
    sessionId: context.sessionId,
    client: context.client,
    reason: verdict.reason,
    expiresAt: Date.now() + timeoutMs,
    ...(offer ? { standing: [{ kind: offer.kind, label: offer.label, forMs: offer.forMs }] } : {}),
  };
  const answer = await askPerson(channels, request, {
    timeoutMs,
    signal: context.signal,
    record: {
      asked: async (names) => {
        // Each request names how long it waits, so a page can show the time left.
        pending.push(
          ...names.map((channel): NewEvent => ({ type: 'confirm.requested', data: { callId, channel, timeoutMs } })),
        );
        if (pending.length > 0) await log.append(pending.splice(0));
      },
      resolved: async (outcome) => {
        if (outcome.action === 'unreachable') return;
        const { channel, action, by } = outcome;
        const resolved: NewEvent = {
          type: 'confirm.resolved',
          data: { callId, channel, approved: action === 'accept', by },
        };
        await log.append([resolved, ...granted(context, rule, offer, outcome)]);
      },
    },
  });
  return answer.action === 'accept'
    ? { approved: true }
    : { approved: false, reason: refusal(tool.name, answer, timeoutMs) };
}

/** `approval.granted` when the person approved with the standing approval offered. */
function granted(
  context: ShadowContext,
  rule: string,
  offer: StandingOffer | undefined,
  { action, standing, channel, by }: PersonOutcome,
): NewEvent[] {
  if (!offer || action !== 'accept' || standing !== offer.kind) return [];
  const { callId } = context;
  return [
    {
      type: 'approval.granted',
      data: { approvalId: approvalIdOf(callId), callId, rule, tool: context.tool.name, ...offer, channel, by },
    },
  ];
}

/** The short id a standing approval is listed and revoked by: one per approved call. */
export function approvalIdOf(callId: string): string {
  return sha256Hex(`approval:${callId}`).slice(0, 12);
}

function refusal(name: string, answer: PersonOutcome, timeoutMs: number): string {
  if (answer.action === 'unreachable')
    return `tool "${name}" requires confirmation but no confirm channel is available${answer.by ? `: ${answer.by}` : ''}`;
  if (answer.action === 'timeout')
    return `tool "${name}": confirmation timed out after ${Math.round(timeoutMs / 1000)}s (no answer counts as declined)`;
  return `tool "${name}": confirmation ${answer.channel === STOPPED ? 'abandoned: the call was stopped' : 'declined'}`;
}
