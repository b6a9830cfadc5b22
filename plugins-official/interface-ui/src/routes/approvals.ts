import type { AgentDirectory } from 'factorly';
import type { Context, Hono } from 'hono';
import type { PendingApproval, PendingConfirm } from '../approvals.js';
import type { AppDeps } from '../app-deps.js';
import { toolHref } from '../history-view.js';
import { html, pretty, type Html } from '../html.js';
import { csrfField, layout, notice, type PageContext } from '../layout.js';
import { questionCard } from '../question-card.js';
import { standingList } from '../standing-list.js';
import { waitingHead } from '../waiting-view.js';

/** The list of what waits for a person (confirmations, questions); the live stream sends the same markup when it changes. */
export function approvalsList(
  pending: readonly PendingApproval[],
  context: PageContext,
  agents: AgentDirectory,
  now = Date.now(),
): Html {
  if (pending.length === 0) return html`<p class="empty">Nothing is waiting for an answer.</p>`;
  return html`${pending.map((p) =>
    p.kind === 'question'
      ? questionCard(p, waitingHead(p, html`${p.question.description ?? p.question.name}`, agents, now), context)
      : confirmCard(p, agents, context, now),
  )}`;
}

function confirmCard(p: PendingConfirm, agents: AgentDirectory, context: PageContext, now: number): Html {
  return html`<article class="approval" id="approval-${p.callId}" aria-labelledby="approval-${p.callId}-title">
  ${waitingHead(p, html`<a href="${toolHref(p.tool)}">${p.tool}</a>`, agents, now)}
  <p>${p.reason}</p>
  <h3>Params</h3><pre tabindex="0">${pretty(p.params)}</pre>
  <div class="actions">
    <form method="post" action="/approvals/${p.callId}/approve">${csrfField(context)}<button type="submit" class="approve">${p.standing.length > 0 ? 'Approve once' : 'Approve'}</button></form>
    ${p.standing.map(
      (choice) =>
        html`<form method="post" action="/approvals/${p.callId}/approve">${csrfField(context)}<input type="hidden" name="standing" value="${choice.kind}"><button type="submit" class="approve">Approve ${choice.label}</button></form>`,
    )}
    <form method="post" action="/approvals/${p.callId}/deny">${csrfField(context)}<button type="submit" class="deny">Deny</button></form>
  </div>
</article>`;
}

const ANSWERED: Record<string, string> = {
  gone: 'That request was already answered elsewhere or has timed out.',
  approved: 'Answered: approved.',
  standing: 'Answered: approved, with a standing approval (listed below).',
  revoked: 'Revoked: the next call it covered asks again.',
  unknown: 'No standing approval by that id is in force.',
  denied: 'Answered: denied.',
  replied: 'Answered.',
  dismissed: 'Dismissed: the agent is told you cancelled the question.',
};

async function page(c: Context, deps: AppDeps, notices: Html = html``, status: 200 | 400 = 200): Promise<Response> {
  const context = deps.page();
  const agents = await deps.services.agents();
  const answered = ANSWERED[c.req.query('answered') ?? ''];
  const body = html`<h1>Approvals</h1>
<p class="muted lede">Calls to tools with <code>shadow: {confirm: true}</code>, and questions agents ask with <code>factorly.ask</code>, wait here while this UI runs, whichever way they came in. The first answer from any channel wins; what nobody answers in time is declined, and a card goes away as soon as its call ends. A tool with <code>confirm: {for: 30m}</code> or <code>{once_per: source}</code> can be approved for a while, or for one script: those approvals stand until they end or are revoked below.</p>
${answered ? notice('ok', [answered]) : ''}${notices}
<div id="approvals-list">${approvalsList(deps.approvals.list(), context, agents)}</div>
<h2>Standing approvals</h2>
${standingList(await deps.services.standingApprovals(), context, agents)}`;
  return c.html(layout('Approvals', '/approvals', body, context).text, status);
}

export function registerApprovals(app: Hono, deps: AppDeps): void {
  app.get('/approvals', (c) => page(c, deps));

  app.post('/approvals/:callId/:answer{approve|deny}', async (c) => {
    const approved = c.req.param('answer') === 'approve';
    const given = (await c.req.parseBody()).standing;
    const standing = given === 'window' || given === 'source' ? given : undefined;
    if (given !== undefined && standing === undefined)
      return page(c, deps, notice('error', [`Not answered: ${JSON.stringify(given)} is no way to approve.`]), 400);
    const done = await deps.approvals.answer(c.req.param('callId'), approved, standing);
    const shown = !done ? 'gone' : !approved ? 'denied' : standing ? 'standing' : 'approved';
    return c.redirect(`/approvals?answered=${shown}`, 303);
  });

  app.post('/approvals/standing/:id/revoke', async (c) => {
    const revoked = await deps.services.revokeApproval(c.req.param('id'), 'ui');
    return c.redirect(`/approvals?answered=${revoked ? 'revoked' : 'unknown'}`, 303);
  });

  // A question's answer is checked as the asking process will check it; one that does not fit keeps the question waiting.
  app.post('/approvals/:callId/:reply{reply|dismiss}', async (c) => {
    const callId = c.req.param('callId');
    const answer = (await c.req.parseBody()).answer;
    const reply =
      c.req.param('reply') === 'reply'
        ? { action: 'accept' as const, given: typeof answer === 'string' ? answer : '' }
        : { action: 'cancel' as const };
    const result = await deps.approvals.reply(callId, reply, (question, key, given) =>
      deps.services.sealAnswer(question, key, given),
    );
    if ('problem' in result) return page(c, deps, notice('error', [`Not answered: ${result.problem}.`]), 400);
    const shown = 'gone' in result ? 'gone' : reply.action === 'accept' ? 'replied' : 'dismissed';
    return c.redirect(`/approvals?answered=${shown}`, 303);
  });
}
