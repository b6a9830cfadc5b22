import type { AgentDirectory } from 'factorly';
import type { Hono } from 'hono';
import { agentLabel, agentName } from '../agents.js';
import type { PendingApproval } from '../approvals.js';
import type { AppDeps } from '../app-deps.js';
import { callHref, toolHref } from '../history-view.js';
import { html, pretty, waited, when, type Html } from '../html.js';
import { csrfField, layout, notice, type PageContext } from '../layout.js';

/** The list of pending confirmations; the live stream sends the same markup when it changes. */
export function approvalsList(
  pending: readonly PendingApproval[],
  context: PageContext,
  agents: AgentDirectory,
  now = Date.now(),
): Html {
  if (pending.length === 0) return html`<p class="empty">Nothing is waiting for an answer.</p>`;
  return html`${pending.map((p) => card(p, context, agents, now))}`;
}

function card(p: PendingApproval, context: PageContext, agents: AgentDirectory, now: number): Html {
  const left = p.expiresAt === undefined ? undefined : Date.parse(p.expiresAt) - now;
  return html`<article class="approval" id="approval-${p.callId}" aria-labelledby="approval-${p.callId}-title">
  <div class="approval-head"><h2 id="approval-${p.callId}-title"><a href="${toolHref(p.tool)}">${p.tool}</a></h2>
  <p class="clock"><span>waiting <time class="elapsed" datetime="${p.requestedAt}" data-since="${p.requestedAt}">${waited(now - Date.parse(p.requestedAt))}</time></span>${
    left === undefined
      ? ''
      : html`<span class="deadline">declined in <time class="countdown" datetime="${p.expiresAt}" data-until="${p.expiresAt}">${waited(left)}</time> unless answered</span>`
  }</p></div>
  <dl class="facts">
    <dt>Agent</dt><dd>${agentLabel(agentName(p.agentId, agents, p.iface))}</dd>
    <dt>Via</dt><dd>${p.iface}</dd>
    <dt>Asked at</dt><dd><time datetime="${p.requestedAt}">${when(p.requestedAt)} UTC</time></dd>
    <dt>Call</dt><dd><a href="${callHref(p.callId)}"><code>${p.callId}</code></a></dd>
  </dl>
  <p>${p.reason}</p>
  <h3>Params</h3><pre tabindex="0">${pretty(p.params)}</pre>
  <div class="actions">
    <form method="post" action="/approvals/${p.callId}/approve">${csrfField(context)}<button type="submit" class="approve">Approve</button></form>
    <form method="post" action="/approvals/${p.callId}/deny">${csrfField(context)}<button type="submit" class="deny">Deny</button></form>
  </div>
</article>`;
}

export function registerApprovals(app: Hono, deps: AppDeps): void {
  app.get('/approvals', async (c) => {
    const context = deps.page();
    const agents = await deps.services.agents();
    const answered = c.req.query('answered');
    const body = html`<h1>Approvals</h1>
<p class="muted lede">Calls to tools with <code>shadow: {confirm: true}</code> wait here while this UI runs, whichever way they came in. The first answer from any channel wins; a call nobody answers in time is declined, and a card goes away as soon as its call ends.</p>
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
