import type { AgentDirectory, CallTree } from 'factorly';
import type { Hono } from 'hono';
import { agentLabel, agentName } from '../agents.js';
import type { AppDeps } from '../app-deps.js';
import { duration, highlights, html, pretty, when, type Html } from '../html.js';
import { badge, layout, notFound } from '../layout.js';
import { statusClass } from '../status.js';
import { layoutWaterfall, type WaterfallRow } from '../waterfall.js';
import { canSave } from './history.js';

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
    const body = html`<p class="crumbs"><a href="/history">History</a> / ${root.tool}</p>
<div class="page-head"><h1>${root.tool} ${badge(root.status ?? 'running')}</h1>${canSave(root) ? html`<a class="button" href="/tools/promote?from-sha=${root.sourceSha}">Save as tool</a>` : ''}</div>
<p class="muted call-meta">${when(root.requestedAt)} UTC · via ${root.iface}${root.agentId ? html` · ${agentLabel(agentName(root.agentId, agents))}` : ''} · ${duration(root.durationMs)} · <code>${root.callId}</code></p>
${waterfall(tree, agents)}
${running ? html`<p class="muted">Still running: <a href="">reload</a> to see how it ends.</p>` : ''}`;
    return c.html(layout(root.tool, '/history', body, deps.page(), '').text);
  });
}

function waterfall(tree: CallTree, agents: AgentDirectory): Html {
  const { rows, spanMs } = layoutWaterfall(tree, Date.now());
  return html`<section class="panel wf-panel"><h2>Call tree <small>${rows.length} call${rows.length === 1 ? '' : 's'} · select a bar for its details</small></h2>
<div class="wf-scale" aria-hidden="true"><span></span><span class="wf-ticks"><span>0</span><span>${duration(spanMs / 2)}</span><span>${duration(spanMs)}</span></span><span></span></div>
<ol class="waterfall">${rows.map(
    (row) => html`<li class="wf-item depth-${Math.min(row.depth, MAX_DEPTH_CLASS)}">
  <a class="wf-row" href="#detail-${row.node.entry.callId}">
    <span class="wf-name">${row.node.entry.tool}</span>
    ${track(row)}
    <span class="wf-dur">${row.running ? 'running' : duration(row.durationMs)}</span>
  </a>
  ${detail(row, tree, agents)}
</li>`,
  )}</ol>
<ul class="legend">${[...new Set(rows.map((r) => r.node.entry.status ?? 'running'))].map((s) => html`<li><span class="swatch ${statusClass(s)}"></span>${s}</li>`)}<li><span class="swatch marker-swatch"></span>shadow decision</li></ul>
</section>`;
}

function track(row: WaterfallRow): Html {
  const status = row.node.entry.status ?? 'running';
  return html`<svg class="wf-track" viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${status}, starts at +${duration(row.startMs)}, takes ${duration(row.durationMs)}">
    <rect class="wf-bar ${statusClass(status)}" x="${row.left}" y="2" width="${row.width}" height="6"><title>${row.node.entry.tool}: ${status}, +${duration(row.startMs)}, ${duration(row.durationMs)}</title></rect>
    ${row.markers.map((m) => html`<line class="marker d-${m.decision.replace(/[^a-z_]/g, '')}" x1="${m.at}" x2="${m.at}" y1="0" y2="10" vector-effect="non-scaling-stroke"><title>${m.rule}: ${m.decision} — ${m.reason}</title></line>`)}
  </svg>`;
}

function detail(row: WaterfallRow, tree: CallTree, agents: AgentDirectory): Html {
  const { node } = row;
  const { entry } = node;
  const source = entry.sourceSha ? tree.sources[entry.sourceSha] : undefined;
  return html`<article class="detail" id="detail-${entry.callId}">
  <h3>${entry.tool} ${badge(entry.status ?? 'running')}${entry.shadowAction ? html` ${badge(entry.shadowAction, 'shadow')}` : ''}</h3>
  <dl class="facts">
    <dt>Started</dt><dd>+${duration(row.startMs)} <span class="muted">(${when(entry.requestedAt)} UTC)</span></dd>
    <dt>Duration</dt><dd>${row.running ? 'running' : duration(entry.durationMs)}${entry.exitCode === undefined ? '' : ` · exit ${entry.exitCode}`}</dd>
    <dt>Via</dt><dd>${entry.iface}${entry.agentId ? html` · ${agentLabel(agentName(entry.agentId, agents))}` : ''}</dd>
    ${entry.engine ? html`<dt>Engine</dt><dd><code>${entry.engine.name} ${entry.engine.version}</code></dd>` : ''}
    ${entry.highlightParams ? html`<dt>Highlight</dt><dd>${highlights(entry.highlightParams)}</dd>` : ''}
    <dt>Call id</dt><dd><code>${entry.callId}</code></dd>
  </dl>
  ${node.decisions.length > 0 ? html`<h4>Shadow decisions</h4><ul class="decisions">${node.decisions.map((d) => html`<li>${badge(d.decision, 'shadow')} <code>${d.rule}</code> ${d.reason}</li>`)}</ul>` : ''}
  ${entry.error ? html`<h4>Error</h4><pre class="error-text">${entry.error}</pre>` : ''}
  <h4>Params</h4><pre>${pretty(entry.params)}</pre>
  ${node.output && node.output.bytes > 0 ? html`<h4>Output <small>${node.output.bytes} bytes${node.output.truncated ? `, cut to ${Buffer.byteLength(node.output.text)} as recorded` : ''}</small></h4><pre class="output">${node.output.text}</pre>` : ''}
  ${node.diagnostics ? html`<h4>Diagnostics</h4><pre>${node.diagnostics}</pre>` : ''}
  ${source ? html`<h4>Script <small title="${source.sha}">sha ${source.sha.slice(0, 12)} · ${source.language}</small></h4><pre class="code">${source.text}</pre>` : ''}
</article>`;
}
