import type { AgentActivity, AgentDirectory, AuditFilter } from 'factorly';
import type { Hono } from 'hono';
import { agentLabel, agentName, IFACE_KEY, type AgentName } from '../agents.js';
import type { AppDeps } from '../app-deps.js';
import { tile } from '../dashboard-view.js';
import { count, html, plural, when, type Html } from '../html.js';
import { layout, notFound, scrolling } from '../layout.js';
import { historyTable } from '../history-view.js';

/** Agents listed: the ones seen most recently (every MCP session is an agent until agents sign in). */
const LISTED = 200;
/** Tools named in an agent's row; its page lists them all. */
const TOOLS_IN_ROW = 3;
const RECENT_CALLS = 20;

/** `/history` for an agent's calls (by interface for calls no agent made), with more filters. */
export function agentHistory(id: string, extra: Record<string, string> = {}): string {
  const own: Record<string, string> = id.startsWith(IFACE_KEY) ? { iface: id.slice(IFACE_KEY.length) } : { agent: id };
  return `/history?${new URLSearchParams({ ...own, ...extra }).toString()}`;
}

function filterOf(id: string): AuditFilter {
  return id.startsWith(IFACE_KEY) ? { iface: id.slice(IFACE_KEY.length) } : { agent: id };
}

function ended(activity: AgentActivity, status: string): number {
  return activity.statuses.get(status) ?? 0;
}

function byCalls(tools: Map<string, number>): [string, number][] {
  return [...tools].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

export function registerAgents(app: Hono, deps: AppDeps): void {
  app.get('/agents', async (c) => {
    const [activity, agents] = await Promise.all([deps.services.agentActivity(), deps.services.agents()]);
    const all = [...activity.values()].sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));
    const shown = all.slice(0, LISTED);
    const body = html`<h1>Agents</h1>
<p class="muted lede">Everyone that called a tool: agents by the client their session introduced (or the name they signed in with), and calls made without an agent by the way they came in.</p>
${
  shown.length === 0
    ? html`<p class="empty">No agent has called a tool yet.</p>`
    : html`${scrolling(
        'Agents',
        html`<table class="agents">
<thead><tr><th>Agent</th><th class="num">Sessions</th><th class="num">Calls</th><th class="num">Errors</th><th class="num">Blocked</th><th>Last seen</th><th>Tools</th></tr></thead>
<tbody>${shown.map((a) => agentRow(a, agentName(a.agent, agents)))}</tbody></table>`,
      )}
${all.length > shown.length ? html`<p class="muted">The ${count(shown.length)} seen most recently of ${count(all.length)}.</p>` : ''}`
}`;
    return c.html(layout('Agents', '/agents', body, deps.page(), '').text);
  });

  app.get('/agents/:id', async (c) => {
    const id = c.req.param('id');
    const [activity, agents] = await Promise.all([deps.services.agentActivity(), deps.services.agents()]);
    const found = activity.get(id);
    if (!found)
      return c.html(
        notFound(
          'No such agent',
          html`No agent <code>${id}</code> has opened a session or called a tool. <a href="/agents">All agents</a>`,
          '/agents',
          deps.page(),
        ).text,
        404,
      );
    const calls = await deps.services.recentCalls(filterOf(id), RECENT_CALLS);
    return c.html(
      layout(agentName(id, agents).name, '/agents', agentPage(found, agents, calls.reverse()), deps.page(), '').text,
    );
  });
}

function agentRow(activity: AgentActivity, name: AgentName): Html {
  const tools = byCalls(activity.tools);
  return html`<tr>
  <td class="t-agent-name">${agentLabel(name)}</td>
  <td class="num">${count(activity.sessions)}</td>
  <td class="num"><a href="${agentHistory(name.id)}">${count(activity.calls)}</a></td>
  <td class="num">${countLink(ended(activity, 'error'), agentHistory(name.id, { status: 'error' }))}</td>
  <td class="num">${countLink(ended(activity, 'blocked'), agentHistory(name.id, { status: 'blocked' }))}</td>
  <td><time datetime="${activity.lastSeen}">${when(activity.lastSeen)}</time></td>
  <td class="t-tools">${tools.slice(0, TOOLS_IN_ROW).map(([tool], i) => html`${i > 0 ? ', ' : ''}<a href="${agentHistory(name.id, { tool })}">${tool}</a>`)}${tools.length > TOOLS_IN_ROW ? html` <span class="muted">+${count(tools.length - TOOLS_IN_ROW)}</span>` : ''}</td>
</tr>`;
}

function countLink(n: number, href: string): Html {
  return n === 0 ? html`<span class="muted">0</span>` : html`<a href="${href}">${count(n)}</a>`;
}

function agentPage(activity: AgentActivity, agents: AgentDirectory, calls: Parameters<typeof historyTable>[0]): Html {
  const name = agentName(activity.agent, agents);
  const known = agents.get(activity.agent);
  const succeeded = ended(activity, 'success');
  return html`<p class="crumbs"><a href="/agents">Agents</a> / ${name.name}</p>
<div class="page-head"><h1>${name.name}${name.short ? html` <code class="sid">${name.short}</code>` : ''}</h1><a class="button secondary" href="${agentHistory(name.id)}">All its calls</a></div>
<section class="tiles" aria-label="Totals">
  ${tile('Calls', count(activity.calls), agentHistory(name.id))}
  ${tile('Succeeded', activity.calls === 0 ? '—' : `${Math.round((succeeded / activity.calls) * 100)} %`, agentHistory(name.id, { status: 'success' }))}
  ${tile('Errors', count(ended(activity, 'error')), agentHistory(name.id, { status: 'error' }), ended(activity, 'error') > 0 ? 's-error' : '')}
  ${tile('Blocked', count(ended(activity, 'blocked')), agentHistory(name.id, { status: 'blocked' }), ended(activity, 'blocked') > 0 ? 's-blocked' : '')}
  ${tile('Sessions', count(activity.sessions))}
</section>
<section class="panel"><h2>Who</h2><dl class="facts">
  <dt>Agent id</dt><dd><code>${activity.agent}</code></dd>
  ${known?.client ? html`<dt>Client</dt><dd>${known.client.name}${known.client.version ? ` ${known.client.version}` : ''}</dd>` : ''}
  ${known ? html`<dt>Via</dt><dd>${known.iface}${known.transport ? ` · ${known.transport}` : ''}</dd>` : ''}
  <dt>First seen</dt><dd><time datetime="${activity.firstSeen}">${activity.firstSeen.replace('T', ' ').slice(0, 19)} UTC</time></dd>
  <dt>Last seen</dt><dd><time datetime="${activity.lastSeen}">${activity.lastSeen.replace('T', ' ').slice(0, 19)} UTC</time></dd>
  ${[...activity.statuses].filter(([s]) => !['success', 'error', 'blocked'].includes(s)).map(([s, n]) => html`<dt>${s}</dt><dd><a href="${agentHistory(name.id, { status: s })}">${count(n)}</a></dd>`)}
</dl></section>
<section class="panel"><h2>Tools <small>${plural(activity.tools.size, 'tool')}</small></h2>${toolsTable(activity, name)}</section>
<section class="panel"><h2>Recent calls</h2>${historyTable(calls, agents, 'No calls yet.')}</section>`;
}

function toolsTable(activity: AgentActivity, name: AgentName): Html {
  if (activity.tools.size === 0) return html`<p class="muted">It has called no tool yet.</p>`;
  return html`${scrolling(
    'Tools it called',
    html`<table class="agent-tools"><thead><tr><th>Tool</th><th class="num">Calls</th><th><span class="visually-hidden">Its calls</span></th></tr></thead><tbody>${byCalls(
      activity.tools,
    ).map(
      ([tool, n]) =>
        html`<tr><td><a href="/tools/${encodeURIComponent(tool)}">${tool}</a></td><td class="num">${count(n)}</td><td><a href="${agentHistory(name.id, { tool })}">its calls</a></td></tr>`,
    )}</tbody></table>`,
  )}`;
}
