import { HIGHLIGHT_FACT, type CallStatus, type CallOrigin, type Params, type ShadowDecided } from '../catalog.js';
import type { Recorded } from '../envelope.js';
import type { Projection } from '../projection.js';

/** One call as the audit view shows it. */
export interface AuditEntry {
  callId: string;
  parentId?: string;
  rootId: string;
  tool: string;
  iface: CallOrigin;
  agentId?: string;
  sessionId?: string;
  params: Params;
  /**
   * The params a rule asked to show with the call when it was made (`shadow.log_params`), as
   * `params` holds them: scrubbed and capped. Absent when none was asked for or sent.
   */
  highlightParams?: Params;
  sourceSha?: string;
  /** The script engine that ran it (code tools). */
  engine?: { name: string; version: string };
  replayedFrom?: string;
  requestedAt: string;
  /** Worst shadow decision taken (or `invalid` / `unknown_tool` for calls blocked before the rules). */
  shadowAction?: string;
  status?: CallStatus;
  exitCode?: number;
  durationMs?: number;
  outputBytes?: number;
  error?: string;
  completedAt?: string;
  /** Hash of the event that closed the call (or opened it, while it is running). */
  hash: string;
  seq: number;
}

export interface AuditState {
  /** Calls in the order they were requested. */
  order: string[];
  byId: Map<string, AuditEntry>;
}

/**
 * The audit view: one entry per call, folded from call.requested, shadow.decided and call.completed
 * (or call.interrupted, for a call whose outcome was never recorded).
 */
export const auditProjection: Projection<AuditState> = {
  name: 'audit',
  // Bump when the fold changes (2: entries carry their highlighted params).
  version: 2,
  init: () => ({ order: [], byId: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'call.requested':
        state.order.push(event.data.callId);
        state.byId.set(event.data.callId, requested(event));
        break;
      case 'shadow.decided':
        update(state, event.data.callId, (entry) => {
          // An allow is the normal case: the view shows what governance did, not that it looked.
          if (event.data.decision !== 'allow') entry.shadowAction = event.data.decision;
          highlight(entry, event.data.facts);
        });
        break;
      case 'call.completed':
        update(state, event.data.callId, (entry) => completed(entry, event));
        break;
      case 'call.interrupted':
        update(state, event.data.callId, (entry) => interrupted(entry, event));
        break;
      default:
        break;
    }
    return state;
  },
};

function requested(event: Recorded<'call.requested'>): AuditEntry {
  const { data } = event;
  return {
    callId: data.callId,
    parentId: data.parentId,
    rootId: data.rootId,
    tool: data.tool,
    iface: data.iface,
    agentId: data.agentId,
    sessionId: data.sessionId,
    params: data.params,
    sourceSha: data.sourceSha,
    // Writers that know the engine record it with the request (v2); older events have none.
    engine: data.engine,
    replayedFrom: data.replayedFrom,
    requestedAt: event.at,
    hash: event.hash,
    seq: event.seq,
  };
}

/** Adds the params a decision names under `HIGHLIGHT_FACT` that the call has, with their values as recorded. */
function highlight(entry: AuditEntry, facts: ShadowDecided['facts']): void {
  const names = facts?.[HIGHLIGHT_FACT];
  if (!Array.isArray(names)) return;
  const present = names.filter((name) => typeof name === 'string' && Object.hasOwn(entry.params, name)) as string[];
  if (present.length === 0) return;
  // Built from entries: a param may be called `__proto__`.
  entry.highlightParams = Object.fromEntries([
    ...Object.entries(entry.highlightParams ?? {}),
    ...present.map((name) => [name, entry.params[name]] as const),
  ]);
}

function completed(entry: AuditEntry, event: Recorded<'call.completed'>): void {
  const { data } = event;
  entry.status = data.status;
  entry.exitCode = data.exitCode;
  entry.durationMs = data.durationMs;
  entry.outputBytes = data.output.bytes;
  entry.error = data.error;
  entry.completedAt = event.at;
  entry.hash = event.hash;
  entry.seq = event.seq;
  if (data.blockedBy !== undefined) entry.shadowAction = data.blockedBy;
}

/** Only for a call with no outcome yet: a completion recorded after all is the better fact. */
function interrupted(entry: AuditEntry, event: Recorded<'call.interrupted'>): void {
  if (entry.status !== undefined) return;
  entry.status = 'interrupted';
  entry.error = event.data.reason;
  entry.completedAt = event.at;
  entry.hash = event.hash;
  entry.seq = event.seq;
}

function update(state: AuditState, callId: string, change: (entry: AuditEntry) => void): void {
  const entry = state.byId.get(callId);
  if (entry) change(entry);
}
