import type { AuditEntry, AuditFilter, CallNode } from 'factorly';
import type { Hono } from 'hono';
import { CODE_TOOL, type AppDeps } from '../app-deps.js';
import { duration, html, pretty, when, type Html } from '../html.js';
import { badge, layout } from '../layout.js';

const PAGE_SIZE = 100;
const STATUSES = ['success', 'error', 'blocked', 'interrupted', 'running'];
const IFACES = ['cli', 'mcp', 'code', 'ui'];

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

/** One row of the history table; the live stream sends the same markup. */
export function historyRow(entry: AuditEntry): Html {
  const status = entry.status ?? 'running';
  return html`<tr id="call-${entry.callId}" class="row-${status}">
  <td class="t-time"><time datetime="${entry.requestedAt}">${when(entry.requestedAt)}</time></td>
  <td class="t-tool"><a href="/history/${entry.callId}">${entry.tool}</a>${entry.parentId ? html` <span class="inner" title="called by a script">inner</span>` : ''}</td>
  <td>${badge(status)}${entry.shadowAction ? html` ${badge(entry.shadowAction, 'shadow')}` : ''}</td>
  <td class="t-iface">${entry.iface}</td>
  <td class="t-agent">${entry.agentId ?? '—'}</td>
  <td class="t-dur">${duration(entry.durationMs)}</td>
  <td class="t-act">${canSave(entry) ? html`<a class="button small" href="/tools/promote?from-sha=${entry.sourceSha}">Save as tool</a>` : ''}</td>
</tr>`;
}

function select(name: string, label: string, options: string[], value: string | undefined): Html {
  return html`<label>${label}<select name="${name}"><option value="">any</option>${options.map(
    (option) => html`<option${option === value ? html` selected` : ''}>${option}</option>`,
  )}</select></label>`;
}

export function registerHistory(app: Hono, deps: AppDeps): void {
  app.get('/history', async (c) => {
    const query = c.req.query();
    const filter = filterOf(query);
    const entries = (await deps.services.recentCalls(filter, PAGE_SIZE)).reverse();
    const live = `/events?${new URLSearchParams(Object.entries(filter) as [string, string][]).toString()}`;
    const body = html`<h1>History</h1>
<form class="filters" method="get" action="/history">
  <label>Tool<input name="tool" value="${filter.tool ?? ''}" placeholder="any"></label>
  ${select('status', 'Status', STATUSES, filter.status)}
  <label>Agent<input name="agent" value="${filter.agent ?? ''}" placeholder="any"></label>
  ${select('iface', 'Interface', IFACES, filter.iface)}
  <button type="submit">Filter</button>
</form>
<div class="table-wrap"><table class="history">
<thead><tr><th>Time</th><th>Tool</th><th>Status</th><th>Via</th><th>Agent</th><th>Duration</th><th></th></tr></thead>
<tbody id="history-rows">${entries.map(historyRow)}</tbody>
</table></div>
${entries.length === 0 ? html`<p id="history-empty" class="empty">No calls yet. They appear here as they happen.</p>` : ''}`;
    return c.html(layout('History', '/history', body, deps.page(), live).text);
  });

  app.get('/history/:callId', async (c) => {
    const callId = c.req.param('callId');
    const tree = await deps.services.callTree(callId);
    if (!tree) return c.html(layout('Not found', '/history', html`<h1>No such call</h1><p>The log has no call <code>${callId}</code>.</p>`, deps.page()).text, 404);
    const completed = (await deps.log.readCall(callId)).find((event) => event.type === 'call.completed');
    const output = completed?.type === 'call.completed' ? completed.data.output : undefined;
    const root = tree.root.entry;
    const body = html`<p class="crumbs"><a href="/history">History</a> / ${root.tool}</p>
<h1>${root.tool} ${badge(root.status ?? 'running')}</h1>
${canSave(root) ? html`<p><a class="button" href="/tools/promote?from-sha=${root.sourceSha}">Save as tool</a></p>` : ''}
<section><h2>Call tree</h2><ul class="tree">${callNode(tree.root)}</ul></section>
${output ? html`<section><h2>Output${output.truncated ? ' (truncated)' : ''}</h2><pre class="output">${output.text}</pre></section>` : ''}
${tree.source ? html`<section><h2>Source <small>sha ${tree.source.sha.slice(0, 12)} · ${tree.source.language}</small></h2><pre class="code">${tree.source.text}</pre></section>` : ''}`;
    return c.html(layout(root.tool, '/history', body, deps.page(), '').text);
  });
}

function callNode(node: CallNode): Html {
  const { entry } = node;
  return html`<li class="node">
  <div class="node-head"><strong>${entry.tool}</strong> ${badge(entry.status ?? 'running')} <span class="muted">${entry.iface}${entry.agentId ? ` · ${entry.agentId}` : ''} · ${duration(entry.durationMs)} · ${when(entry.requestedAt)}</span></div>
  ${entry.error ? html`<p class="error-text">${entry.error}</p>` : ''}
  <details><summary>params</summary><pre>${pretty(entry.params)}</pre></details>
  ${node.decisions.length > 0 ? html`<ul class="decisions">${node.decisions.map((d) => html`<li>${badge(d.decision, 'shadow')} <code>${d.rule}</code> ${d.reason}</li>`)}</ul>` : ''}
  ${node.children.length > 0 ? html`<ul class="tree">${node.children.map(callNode)}</ul>` : ''}
</li>`;
}
