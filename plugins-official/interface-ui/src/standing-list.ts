import type { AgentDirectory, StandingApproval } from 'factorly';
import { agentLabel, agentName } from './agents.js';
import { toolHref } from './history-view.js';
import { html, when, type Html } from './html.js';
import { csrfField, scrolling, type PageContext } from './layout.js';

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
  return scrolling(
    'Standing approvals',
    html`<table class="standing">
<thead><tr><th>Tool</th><th>Covers</th><th>Agent</th><th>Approved</th><th>Until</th><th class="t-act"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${approvals.map((approval) => row(approval, context, agents))}</tbody>
</table>`,
  );
}

function row(approval: StandingApproval, context: PageContext, agents: AgentDirectory): Html {
  const covers = approval.kind === 'source' ? `script ${approval.sha?.slice(0, 12) ?? ''}…` : 'every call';
  const agent = approval.agentId ? agentLabel(agentName(approval.agentId, agents)) : '—';
  const until = new Date(approval.untilMs).toISOString();
  return html`<tr id="standing-${approval.approvalId}">
  <td><a href="${toolHref(approval.tool)}">${approval.tool}</a></td><td>${covers} (${approval.label})</td><td>${agent}</td>
  <td>${when(approval.grantedAt)} by ${approval.by ?? approval.channel}</td><td>${when(until)}</td>
  <td><form method="post" action="/approvals/standing/${approval.approvalId}/revoke">${csrfField(context)}<button type="submit" class="deny small">Revoke</button></form></td>
</tr>`;
}
