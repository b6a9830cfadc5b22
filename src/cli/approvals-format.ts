import type { StandingApproval } from '../events/projections/standing.js';
import { table } from './table.js';

/** A standing approval as `factorly approvals --json` prints it: the fold's fields, `until` as a time. */
export function approvalJson(approval: StandingApproval) {
  const { approvalId, tool, kind, label, sha, agentId, by, channel, grantedAt, untilMs, callId, rule } = approval;
  return {
    approvalId,
    tool,
    kind,
    label,
    sha,
    agentId,
    by,
    channel,
    grantedAt,
    until: new Date(untilMs).toISOString(),
    callId,
    rule,
  };
}

/** What an approval covers, in a few words: every call of its tool by its agent, or one script. */
export function covers(approval: StandingApproval): string {
  const by = approval.agentId === undefined ? '' : ` by agent ${approval.agentId}`;
  if (approval.kind === 'source') return `script ${approval.sha?.slice(0, 12) ?? '?'}…${by}`;
  return by === '' ? 'every call made without an agent' : `every call${by}`;
}

/** The approvals as a table a person reads (`factorly approvals`). */
export function approvalsTable(approvals: readonly StandingApproval[], width: number): string {
  const rows = approvals.map((approval) => [
    approval.approvalId,
    approval.tool,
    covers(approval),
    approval.by ?? approval.channel,
    new Date(approval.untilMs).toISOString().replace('T', ' ').slice(0, 19),
  ]);
  return table(['ID', 'TOOL', 'COVERS', 'APPROVED BY', 'UNTIL (UTC)'], rows, width, 2);
}
