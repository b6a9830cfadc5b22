import { stream } from 'hono/streaming';
import type { Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { html } from '../html.js';
import { badge, layout } from '../layout.js';

export function registerAudit(app: Hono, deps: AppDeps): void {
  app.get('/audit', async (c) => {
    const [chain, stats] = await Promise.all([deps.services.verify(), deps.services.stats()]);
    const tools = Object.entries(stats.byTool).sort(([, a], [, b]) => b - a).slice(0, 10);
    const blocked = Object.entries(stats.blockedBy).sort(([, a], [, b]) => b - a);
    const body = html`<h1>Audit</h1>
<section class="chain ${chain.ok ? 'chain-ok' : 'chain-bad'}"><h2>Hash chain ${badge(chain.ok ? 'intact' : 'broken', chain.ok ? 'success' : 'error')}</h2>
<p>${chain.ok ? `${chain.verified} events verified.` : `Broken at seq ${chain.firstBad!.seq} (${chain.firstBad!.kind}): ${chain.firstBad!.reason}; ${chain.verified} events before it verified.`}</p>
<p><a class="button" href="/audit/export" download>Export the log (JSONL)</a></p></section>
<section><h2>Calls</h2><dl class="stats">
<dt>Events</dt><dd>${stats.events}</dd><dt>Calls</dt><dd>${stats.calls}</dd>
${Object.entries(stats.byStatus).map(([status, n]) => html`<dt>${status}</dt><dd>${n}</dd>`)}
</dl></section>
<section><h2>Top tools</h2>${tools.length === 0 ? html`<p class="muted">No calls yet.</p>` : html`<ul class="bars">${tools.map(([tool, n]) => html`<li><span>${tool}</span><b>${n}</b></li>`)}</ul>`}</section>
<section><h2>Blocked</h2>${blocked.length === 0 ? html`<p class="muted">Nothing was blocked.</p>` : html`<ul class="bars">${blocked.map(([why, n]) => html`<li><span>${why}</span><b>${n}</b></li>`)}</ul>`}</section>`;
    return c.html(layout('Audit', '/audit', body, deps.page(), '').text);
  });

  // The raw envelopes with their hashes, one per line, as `factorly logs export` writes them.
  app.get('/audit/export', (c) => {
    c.header('Content-Type', 'application/x-ndjson; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="factorly-events.jsonl"');
    return stream(c, async (out) => {
      for await (const event of deps.log.read()) {
        if (out.aborted) break;
        await out.write(`${JSON.stringify(event)}\n`);
      }
    });
  });
}
