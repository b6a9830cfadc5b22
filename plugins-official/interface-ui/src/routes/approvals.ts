import type { AgentDirectory } from 'factorly';
import type { Hono } from 'hono';
import { agentText, agentName } from '../agents.js';
import type { PendingApproval } from '../approvals.js';
import type { AppDeps } from '../app-deps.js';
import { html, pretty, when, type Html } from '../html.js';
import { csrfField, layout, notice, type PageContext } from '../layout.js';

/** The list of pending confirmations; the live stream sends the same markup when it changes. */
export function approvalsList(pending: readonly PendingApproval[], context: PageContext, agents: AgentDirectory): Html {
  if (pending.length === 0) return html`<p class="empty">Nothing is waiting for an answer.</p>`;
  return html`${pending.map(
    (p) => html`<article class="approval" id="approval-${p.callId}">
  <h2>${p.tool}</h2>
  <p class="muted">${p.agentId ? `${agentText(agentName(p.agentId, agents))} · ` : ''}via ${p.iface} · asked at ${when(p.requestedAt)}</p>
  <p>${p.reason}</p>
  <pre>${pretty(p.params)}</pre>
  <div class="actions">
    <form method="post" action="/approvals/${p.callId}/approve">${csrfField(context)}<button type="submit" class="approve">Approve</button></form>
    <form method="post" action="/approvals/${p.callId}/deny">${csrfField(context)}<button type="submit" class="deny">Deny</button></form>
  </div>
</article>`,
  )}`;
}

export function registerApprovals(app: Hono, deps: AppDeps): void {
  app.get('/approvals', async (c) => {
    const context = deps.page();
    const agents = await deps.services.agents();
    const answered = c.req.query('answered');
    const body = html`<h1>Approvals</h1>
<p class="muted">Calls to tools with <code>shadow: {confirm: true}</code> wait here while this UI runs, whichever way they came in. The first answer from any channel wins.</p>
${answered ? notice('ok', [answered === 'gone' ? 'That request was already answered elsewhere or has timed out.' : `Answered: ${answered}.`]) : ''}
<div id="approvals-list">${approvalsList(deps.approvals.list(), context, agents)}</div>`;
    return c.html(layout('Approvals', '/approvals', body, context).text);
  });

  app.post('/approvals/:callId/:answer{approve|deny}', async (c) => {
    const approved = c.req.param('answer') === 'approve';
    const done = await deps.approvals.answer(c.req.param('callId'), approved);
    return c.redirect(`/approvals?answered=${done ? (approved ? 'approved' : 'denied') : 'gone'}`, 303);
  });
}
