import type { AgentDirectory, AuditEntry, AuditFilter } from 'factorly';
import type { Hono } from 'hono';
import { agentLabel, agentName, agentText } from '../agents.js';
import { CODE_TOOL, type AppDeps } from '../app-deps.js';
import { duration, highlights, html, when, type Html } from '../html.js';
import { badge, layout } from '../layout.js';

const PAGE_SIZE = 100;
const STATUSES = ['success', 'error', 'blocked', 'cancelled', 'timeout', 'interrupted', 'running'];
const IFACES = ['cli', 'mcp', 'code', 'ui'];
/** Agents offered in the filter: the most recent sessions. */
const AGENT_CHOICES = 50;

/** The filters of /history from its query string (empty fields mean "any"). */
export function filterOf(query: Record<string, string>): AuditFilter {
  const filter: AuditFilter = {};
  if (query.tool?.trim()) filter.tool = query.tool.trim();
  if (query.status?.trim()) filter.status = query.status.trim();
  if (query.agent?.trim()) filter.agent = query.agent.trim();
  if (query.iface?.trim()) filter.iface = query.iface.trim();
  return filter;
}

export function canSave(entry: AuditEntry): boolean {
  return entry.tool === CODE_TOOL && entry.status === 'success' && entry.sourceSha !== undefined;
}

export function callHref(callId: string): string {
  return `/calls/${encodeURIComponent(callId)}`;
}

/** One row of the history table; the live stream sends the same markup. */
export function historyRow(entry: AuditEntry, agents: AgentDirectory): Html {
  const status = entry.status ?? 'running';
  const agent = entry.agentId ? agentName(entry.agentId, agents) : undefined;
  return html`<tr id="call-${entry.callId}" class="row-${status}">
  <td class="t-time"><time datetime="${entry.requestedAt}">${when(entry.requestedAt)}</time></td>
  <td class="t-tool"><a href="${callHref(entry.callId)}">${entry.tool}</a>${entry.parentId ? html` <span class="inner" title="called by a script">inner</span>` : ''}${highlights(entry.highlightParams)}<span class="row-sub">${entry.iface}${agent ? ` · ${agentText(agent)}` : ''} · ${duration(entry.durationMs)}</span></td>
  <td>${badge(status)}${entry.shadowAction ? html` ${badge(entry.shadowAction, 'shadow')}` : ''}</td>
  <td class="t-iface">${entry.iface}</td>
  <td class="t-agent">${agent ? agentLabel(agent) : html`<span class="muted">—</span>`}</td>
  <td class="t-dur">${duration(entry.durationMs)}</td>
  <td class="t-act">${canSave(entry) ? html`<a class="button small" href="/tools/promote?from-sha=${entry.sourceSha}">Save as tool</a>` : ''}</td>
</tr>`;
}

function select(
  name: string,
  label: string,
  options: readonly (readonly [string, string])[],
  value: string | undefined,
): Html {
  return html`<label>${label}<select name="${name}"><option value="">any</option>${options.map(
    ([option, text]) => html`<option value="${option}"${option === value ? html` selected` : ''}>${text}</option>`,
  )}</select></label>`;
}

/** The agents to offer: the newest sessions, plus the one filtered on when it is older. */
function agentChoices(agents: AgentDirectory, chosen: string | undefined): [string, string][] {
  const newest = [...agents.values()]
    .sort((a, b) => b.openedAt.localeCompare(a.openedAt))
    .slice(0, AGENT_CHOICES)
    .map((a) => a.agentId);
  if (chosen && !newest.includes(chosen)) newest.unshift(chosen);
  return newest.map((id) => [id, agentText(agentName(id, agents))]);
}

export function registerHistory(app: Hono, deps: AppDeps): void {
  app.get('/history', async (c) => {
    const query = c.req.query();
    const filter = filterOf(query);
    const [entries, agents] = await Promise.all([deps.services.recentCalls(filter, PAGE_SIZE), deps.services.agents()]);
    entries.reverse();
    const live = `/events?${new URLSearchParams(Object.entries(filter) as [string, string][]).toString()}`;
    const body = html`<h1>History</h1>
<form class="filters" method="get" action="/history">
  <label>Tool<input name="tool" value="${filter.tool ?? ''}" placeholder="any"></label>
  ${select(
    'status',
    'Status',
    STATUSES.map((s) => [s, s] as const),
    filter.status,
  )}
  ${select('agent', 'Agent', agentChoices(agents, filter.agent), filter.agent)}
  ${select(
    'iface',
    'Interface',
    IFACES.map((s) => [s, s] as const),
    filter.iface,
  )}
  <button type="submit">Filter</button>
</form>
<div class="table-wrap"><table class="history">
<thead><tr><th>Time</th><th>Tool</th><th>Status</th><th class="t-iface">Via</th><th class="t-agent">Agent</th><th class="t-dur">Duration</th><th></th></tr></thead>
<tbody id="history-rows">${entries.map((entry) => historyRow(entry, agents))}</tbody>
</table></div>
${entries.length === 0 ? html`<p id="history-empty" class="empty">No calls yet. They appear here as they happen.</p>` : ''}`;
    return c.html(layout('History', '/history', body, deps.page(), live).text);
  });

  // The call page moved to /calls/<id>; links written before keep working.
  app.get('/history/:callId', (c) => c.redirect(callHref(c.req.param('callId')), 301));
}
