import type { AgentDirectory } from 'factorly';
import { agentLabel, agentName } from './agents.js';
import type { PendingApproval } from './approvals.js';
import { callHref } from './history-view.js';
import { html, waited, when, type Html } from './html.js';

/**
 * What every card on the approvals page starts with, confirmation or question: its title, how long it
 * has waited and how long is left before it is declined (static/app.js keeps both counting), then
 * who asks (the agent, linked to its page), through what, when, and the call.
 */
export function waitingHead(p: PendingApproval, title: Html, agents: AgentDirectory, now: number): Html {
  const left = p.expiresAt === undefined ? undefined : Date.parse(p.expiresAt) - now;
  const ends = p.kind === 'question' ? 'stops waiting in' : 'declined in';
  return html`<div class="approval-head"><h2 id="approval-${p.callId}-title">${title}</h2>
  <p class="clock"><span>waiting <time class="elapsed" datetime="${p.requestedAt}" data-since="${p.requestedAt}">${waited(now - Date.parse(p.requestedAt))}</time></span>${
    left === undefined
      ? ''
      : html`<span class="deadline">${ends} <time class="countdown" datetime="${p.expiresAt}" data-until="${p.expiresAt}">${waited(left)}</time> unless answered</span>`
  }</p></div>
  <dl class="facts">
    <dt>Agent</dt><dd>${agentLabel(agentName(p.agentId, agents, p.iface))}</dd>
    <dt>Via</dt><dd>${p.iface}${p.kind === 'question' ? ` · ${p.tool}` : ''}</dd>
    <dt>Asked at</dt><dd><time datetime="${p.requestedAt}">${when(p.requestedAt)} UTC</time></dd>
    <dt>Call</dt><dd><a href="${callHref(p.callId)}"><code>${p.callId}</code></a></dd>
  </dl>`;
}
