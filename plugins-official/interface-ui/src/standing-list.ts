import type { AgentDirectory, StandingApproval } from 'factorly';
import { agentName, agentText } from './agents.js';
import { html, when, type Html } from './html.js';
import { csrfField, type PageContext } from './layout.js';

/**
 * The standing approvals in force (`shadow.confirm: {for: 30m}`, `{once_per: source}`), each with
 * what it covers, who gave it, until when, and a Revoke button. The list comes from the log's fold,
 * so an approval given or revoked in any process shows here.
 */
export function standingList(
  approvals: readonly StandingApproval[],
  context: PageContext,
  agents: AgentDirectory,
): Html {
  if (approvals.length === 0)
    return html`<p class="empty">No standing approvals. Approving a call "for 30 minutes" or "for this script" adds one.</p>`;
  return html`<div class="table-wrap"><table class="standing">
<thead><tr><th>Tool</th><th>Covers</th><th>Agent</th><th>Approved</th><th>Until</th><th></th></tr></thead>
<tbody>${approvals.map((approval) => row(approval, context, agents))}</tbody>
</table></div>`;
}

function row(approval: StandingApproval, context: PageContext, agents: AgentDirectory): Html {
  const covers = approval.kind === 'source' ? `script ${approval.sha?.slice(0, 12) ?? ''}…` : 'every call';
  const agent = approval.agentId ? agentText(agentName(approval.agentId, agents)) : '—';
  const until = new Date(approval.untilMs).toISOString();
  return html`<tr id="standing-${approval.approvalId}">
  <td>${approval.tool}</td><td>${covers} (${approval.label})</td><td>${agent}</td>
  <td>${when(approval.grantedAt)} by ${approval.by ?? approval.channel}</td><td>${when(until)}</td>
  <td><form method="post" action="/approvals/standing/${approval.approvalId}/revoke">${csrfField(context)}<button type="submit" class="deny small">Revoke</button></form></td>
</tr>`;
}
