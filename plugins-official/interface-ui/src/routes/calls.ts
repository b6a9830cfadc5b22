import type { AgentDirectory, AuditEntry, CallTree } from 'factorly';
import type { Hono } from 'hono';
import { agentLabel, agentName } from '../agents.js';
import type { AppDeps } from '../app-deps.js';
import { callHref, canSave, reasonOf, toolHref } from '../history-view.js';
import { duration, highlights, html, plural, pretty, when, type Html } from '../html.js';
import { badge, layout, notFound } from '../layout.js';
import { statusClass } from '../status.js';
import { layoutWaterfall, type WaterfallRow } from '../waterfall.js';

/** Depths with their own indent class (inline styles are not allowed by the CSP); deeper ones share the last. */
const MAX_DEPTH_CLASS = 6;

export function registerCalls(app: Hono, deps: AppDeps): void {
  app.get('/calls/:callId', async (c) => {
    const callId = c.req.param('callId');
    const [tree, agents] = await Promise.all([deps.services.callTree(callId), deps.services.agents()]);
    if (!tree)
      return c.html(
        notFound(
          'No such call',
          html`The log has no call <code>${callId}</code>. <a href="/history">History</a>`,
          '/history',
          deps.page(),
        ).text,
        404,
      );
    const root = tree.root.entry;
    const running = root.status === undefined;
    const body = html`<p class="crumbs"><a href="/history">History</a> / ${root.parentId ? html`<a href="${callHref(root.rootId)}">its script's call</a> / ` : ''}${root.tool}</p>
<div class="page-head"><h1>${root.tool} ${badge(root.status ?? 'running')}</h1>${canSave(root) ? html`<a class="button" href="/tools/promote?from-sha=${root.sourceSha}">Save as tool</a>` : ''}</div>
<p class="muted call-meta">${when(root.requestedAt)} UTC · via ${root.iface}${root.agentId ? html` · ${agentLabel(agentName(root.agentId, agents))}` : ''} · ${duration(root.durationMs)} · <code>${root.callId}</code></p>
${neighbours(root)}
${waterfall(tree, agents)}
${running ? html`<p class="muted">Still running: <a href="">reload</a> to see how it ends.</p>` : ''}`;
    return c.html(layout(root.tool, '/history', body, deps.page(), '').text);
  });
}

/** Where the call sits: its tool, the call that made it, and the other calls of its tool. */
function neighbours(entry: AuditEntry): Html {
  const links = [
    html`<a href="${toolHref(entry.tool)}">Tool ${entry.tool}</a>`,
    entry.parentId ? html`<a href="${callHref(entry.parentId)}" rel="up">Called by its parent call</a>` : '',
    html`<a href="/history?${new URLSearchParams({ tool: entry.tool }).toString()}">Other calls of ${entry.tool}</a>`,
  ];
  return html`<nav class="neighbours" aria-label="Related">${links}</nav>`;
}

function waterfall(tree: CallTree, agents: AgentDirectory): Html {
  const { rows, spanMs } = layoutWaterfall(tree, Date.now());
  const critical = rows.some((row) => row.critical);
  // Tool names by call id, so a call names the call that made it.
  const tools = new Map(rows.map((row) => [row.node.entry.callId, row.node.entry.tool]));
  return html`<section class="panel wf-panel"><h2>Call tree <small>${plural(rows.length, 'call')} · select a bar for its details</small></h2>
<div class="wf-scale" aria-hidden="true"><span></span><span class="wf-ticks"><span>0</span><span>${duration(spanMs / 2)}</span><span>${duration(spanMs)}</span></span><span></span></div>
<ol class="waterfall">${rows.map(
    (
      row,
    ) => html`<li class="wf-item depth-${Math.min(row.depth, MAX_DEPTH_CLASS)}${row.critical ? ' critical' : ''}" data-depth="${row.depth}">
  <div class="wf-line">${row.descendants > 0 ? html`<button type="button" class="wf-toggle" aria-expanded="true" hidden title="Fold or unfold its ${plural(row.descendants, 'inner call')}"><span class="visually-hidden">Fold ${row.node.entry.tool}'s inner calls</span></button>` : html`<span class="wf-slot"></span>`}<a class="wf-row" href="#detail-${row.node.entry.callId}"${rowTitle(row)}>
    <span class="wf-name">${row.node.entry.tool}</span>${row.critical ? html`<span class="visually-hidden">on the critical path</span>` : ''}
    ${track(row)}
    <span class="wf-dur">${row.running ? 'running' : duration(row.durationMs)}</span>
  </a></div>
  ${detail(row, tree, agents, tools)}
</li>`,
  )}</ol>
<ul class="legend">${[...new Set(rows.map((r) => r.node.entry.status ?? 'running'))].map((s) => html`<li><span class="swatch ${statusClass(s)}"></span>${s}</li>`)}<li><span class="swatch marker-swatch"></span>shadow decision</li>${critical ? html`<li><span class="swatch critical-swatch"></span>critical path</li>` : ''}</ul>
</section>`;
}

/** The hover text of a row: why the call failed, when it did. */
function rowTitle(row: WaterfallRow): Html {
  const reason = reasonOf(row.node.entry);
  return reason ? html` title="${row.node.entry.status}: ${reason}"` : html``;
}

function track(row: WaterfallRow): Html {
  const status = row.node.entry.status ?? 'running';
  const reason = reasonOf(row.node.entry);
  return html`<svg class="wf-track" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${status}, starts at +${duration(row.startMs)}, takes ${duration(row.durationMs)}">
    <rect class="wf-bar ${statusClass(status)}" x="${row.left}" y="2" width="${row.width}" height="6"><title>${row.node.entry.tool}: ${status}, +${duration(row.startMs)}, ${duration(row.durationMs)}${reason ? ` — ${reason}` : ''}</title></rect>
    ${row.markers.map((m) => html`<line class="marker d-${m.decision.replace(/[^a-z_]/g, '')}" x1="${m.at}" x2="${m.at}" y1="0" y2="10" vector-effect="non-scaling-stroke"><title>${m.rule}: ${m.decision} — ${m.reason}</title></line>`)}
  </svg>`;
}

function detail(row: WaterfallRow, tree: CallTree, agents: AgentDirectory, tools: Map<string, string>): Html {
  const { node } = row;
  const { entry } = node;
  const source = entry.sourceSha ? tree.sources[entry.sourceSha] : undefined;
  return html`<article class="detail" id="detail-${entry.callId}">
  <h3><a href="${callHref(entry.callId)}">${entry.tool}</a> ${badge(entry.status ?? 'running')}${entry.shadowAction ? html` ${badge(entry.shadowAction, 'shadow')}` : ''}</h3>
  <dl class="facts">
    <dt>Started</dt><dd>+${duration(row.startMs)} <span class="muted">(${when(entry.requestedAt)} UTC)</span></dd>
    <dt>Duration</dt><dd>${row.running ? 'running' : duration(entry.durationMs)}${entry.exitCode === undefined ? '' : ` · exit ${entry.exitCode}`}</dd>
    <dt>Tool</dt><dd><a href="${toolHref(entry.tool)}">${entry.tool}</a></dd>
    <dt>Via</dt><dd>${entry.iface}${entry.agentId ? html` · ${agentLabel(agentName(entry.agentId, agents))}` : ''}</dd>
    ${entry.parentId ? html`<dt>Called by</dt><dd><a href="${callHref(entry.parentId)}">${tools.get(entry.parentId) ?? 'its parent call'}</a></dd>` : ''}
    ${node.children.length > 0 ? html`<dt>Calls</dt><dd>${node.children.map((child, i) => html`${i > 0 ? ', ' : ''}<a href="#detail-${child.entry.callId}">${child.entry.tool}</a>`)}</dd>` : ''}
    ${entry.engine ? html`<dt>Engine</dt><dd><code>${entry.engine.name} ${entry.engine.version}</code></dd>` : ''}
    ${entry.highlightParams ? html`<dt>Highlight</dt><dd>${highlights(entry.highlightParams)}</dd>` : ''}
    <dt>Call id</dt><dd><a href="${callHref(entry.callId)}"><code>${entry.callId}</code></a></dd>
  </dl>
  ${node.decisions.length > 0 ? html`<h4>Shadow decisions</h4><ul class="decisions">${node.decisions.map((d) => html`<li>${badge(d.decision, 'shadow')} <code>${d.rule}</code> ${d.reason}</li>`)}</ul>` : ''}
  ${entry.error ? html`<h4>Error</h4><pre class="error-text" tabindex="0">${entry.error}</pre>` : ''}
  <h4>Params</h4><pre tabindex="0">${pretty(entry.params)}</pre>
  ${node.output && node.output.bytes > 0 ? html`<h4>Output <small>${node.output.bytes} bytes${node.output.truncated ? `, cut to ${Buffer.byteLength(node.output.text)} as recorded` : ''}</small></h4><pre class="output" tabindex="0">${node.output.text}</pre>` : ''}
  ${node.diagnostics ? html`<h4>Diagnostics</h4><pre tabindex="0">${node.diagnostics}</pre>` : ''}
  ${source ? html`<h4>Script <small title="${source.sha}">sha ${source.sha.slice(0, 12)} · ${source.language}</small></h4><pre class="code" tabindex="0">${source.text}</pre>` : ''}
</article>`;
}
