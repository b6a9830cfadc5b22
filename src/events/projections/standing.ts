import { STANDING_FACT, type ApprovalGranted, type JsonValue, type StandingOffer } from '../catalog.js';
import type { Recorded } from '../envelope.js';
import type { EventLog } from '../log.js';
import type { Projection } from '../projection.js';

/** A standing approval in force: the grant, when the person answered, and until when it covers calls. */
export interface StandingApproval extends Omit<ApprovalGranted, 'forMs'> {
  /** When the person answered (the `approval.granted` event's time). */
  grantedAt: string;
  /** Epoch milliseconds it stops covering calls: `grantedAt + forMs`. */
  untilMs: number;
}

/** A call's first `confirm` decision: the standing approval it offered (null: none), and whether the person approved. */
interface Asked {
  offer: (StandingOffer & { rule: string }) | null;
  approved: boolean;
}

export interface StandingState {
  /** Calls asked to be confirmed whose answer is not settled yet, by call id. */
  asked: Map<string, Asked>;
  /** Approvals in force (or expired since the last grant pruned them), by id. */
  approvals: Map<string, StandingApproval>;
}

/**
 * Standing approvals, folded from the log: a grant counts only when it answers what the call's first
 * `confirm` decision offered (same rule, scope, kind and window) and the person approved that call;
 * a grant nobody was offered (a forged event) covers nothing. `approval.revoked` withdraws one; an
 * expired one is dropped when the next grant is folded (readers compare `untilMs` with their own
 * time anyway). The state stays small: calls waiting for a person, and the approvals in force.
 */
export const standingProjection: Projection<StandingState> & { readonly version: number } = {
  name: 'standing-approvals',
  version: 1,
  init: () => ({ asked: new Map(), approvals: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'shadow.decided': {
        const { callId, decision, rule, facts } = event.data;
        if (decision === 'confirm' && !state.asked.has(callId)) {
          const offer = standingOfferIn(facts);
          state.asked.set(callId, { offer: offer ? { ...offer, rule } : null, approved: false });
        }
        return state;
      }
      case 'confirm.resolved': {
        const asked = state.asked.get(event.data.callId);
        if (asked) asked.approved = event.data.approved === true;
        return state;
      }
      case 'approval.granted':
        return granted(state, event);
      case 'approval.revoked':
        state.approvals.delete(event.data.approvalId);
        return state;
      case 'call.completed':
      case 'call.interrupted':
        state.asked.delete(event.data.callId);
        return state;
      default:
        return state;
    }
  },
};

function granted(state: StandingState, event: Recorded<'approval.granted'>): StandingState {
  const data = event.data;
  const asked = state.asked.get(data.callId);
  state.asked.delete(data.callId);
  const at = Date.parse(event.at);
  for (const [id, approval] of state.approvals) if (approval.untilMs <= at) state.approvals.delete(id);
  if (!asked?.approved || !answers(asked.offer, data)) return state;
  const { forMs, ...grant } = data;
  state.approvals.set(data.approvalId, { ...grant, grantedAt: event.at, untilMs: at + forMs });
  return state;
}

/** Whether a grant is the one the call was offered. */
function answers(offer: Asked['offer'], grant: ApprovalGranted): boolean {
  return (
    offer !== null &&
    offer.rule === grant.rule &&
    offer.kind === grant.kind &&
    offer.scope === grant.scope &&
    offer.forMs === grant.forMs &&
    typeof grant.approvalId === 'string'
  );
}

/** The standing approval a `confirm` verdict's facts offer (`STANDING_FACT`), if it is a well-formed one. */
export function standingOfferIn(facts: Record<string, JsonValue> | undefined): StandingOffer | undefined {
  const raw = facts?.[STANDING_FACT];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const { kind, scope, forMs, label, sha, agentId } = raw;
  if (kind !== 'window' && kind !== 'source') return undefined;
  if (typeof scope !== 'string' || typeof label !== 'string') return undefined;
  if (typeof forMs !== 'number' || !Number.isFinite(forMs) || forMs <= 0) return undefined;
  if ((sha !== undefined && typeof sha !== 'string') || (agentId !== undefined && typeof agentId !== 'string'))
    return undefined;
  return {
    ...{ kind, scope, forMs, label },
    ...(sha === undefined ? {} : { sha }),
    ...(agentId === undefined ? {} : { agentId }),
  };
}

/** The approvals in force at `now`, oldest first. */
export function activeApprovals(state: StandingState, now: number): StandingApproval[] {
  return [...state.approvals.values()]
    .filter((approval) => approval.untilMs > now)
    .sort((a, b) => a.grantedAt.localeCompare(b.grantedAt));
}

/** The approval of `rule` in force at `now` that covers `scope` (the one standing longest), if any. */
export function standingApproval(
  state: StandingState,
  rule: string,
  scope: string,
  now: number,
): StandingApproval | undefined {
  let found: StandingApproval | undefined;
  for (const approval of state.approvals.values()) {
    if (approval.rule !== rule || approval.scope !== scope || approval.untilMs <= now) continue;
    if (!found || approval.untilMs > found.untilMs) found = approval;
  }
  return found;
}

/** The approvals in force in a log now (from its persisted projection), oldest first. */
export async function listApprovals(log: EventLog, now = Date.now()): Promise<StandingApproval[]> {
  const { state } = await log.project(standingProjection).current();
  return structuredClone(activeApprovals(state, now));
}

/**
 * Withdraws an approval in force (`approval.revoked`): every process deciding with the log sees it
 * at its next decision. Undefined, and nothing written, when no approval by that id is in force.
 */
export async function revokeApproval(
  log: EventLog,
  approvalId: string,
  by: string,
  now = Date.now(),
): Promise<StandingApproval | undefined> {
  const approval = (await listApprovals(log, now)).find((candidate) => candidate.approvalId === approvalId);
  if (approval) await log.append([{ type: 'approval.revoked', data: { approvalId, by } }]);
  return approval;
}

/**
 * Standing approvals as the kernel hands them to rules (`KernelTokens.StandingApprovals`): a rule
 * that offers them declares `history` as this fold and asks `find` whether one covers a call.
 */
export interface StandingApprovals {
  readonly history: Projection<StandingState>;
  /** The approval of `rule` in force at `now` that covers `scope`, if any. */
  find(state: StandingState, rule: string, scope: string, now: number): StandingApproval | undefined;
}

export const standingApprovals: StandingApprovals = { history: standingProjection, find: standingApproval };
