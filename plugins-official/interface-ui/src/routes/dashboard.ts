import type { DashboardRange } from 'factorly';
import type { Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { dashboardPanels, RANGE_LABELS, RANGES } from '../dashboard-view.js';
import { html } from '../html.js';
import { layout } from '../layout.js';

const DEFAULT_RANGE: DashboardRange = '24h';

/** `?range=` as one of the ranges, the default for anything else. */
export function rangeOf(value: string | undefined): DashboardRange {
  return (RANGES as readonly string[]).includes(value ?? '') ? (value as DashboardRange) : DEFAULT_RANGE;
}

export function registerDashboard(app: Hono, deps: AppDeps): void {
  app.get('/dashboard', async (c) => {
    const range = rangeOf(c.req.query('range'));
    const [figures, agents] = await Promise.all([deps.services.dashboard(range), deps.services.agents()]);
    const body = html`<div class="page-head"><h1>Dashboard</h1>
<nav class="ranges" aria-label="Time range">${RANGES.map((r) => html`<a href="/dashboard?range=${r}"${r === range ? html` class="active" aria-current="true"` : ''} title="${RANGE_LABELS[r]}">${r.replace(/(\d+)/, '$1 ')}</a>`)}</nav></div>
<div id="dashboard-panels">${dashboardPanels(figures, agents)}</div>`;
    return c.html(layout('Dashboard', '/dashboard', body, deps.page(), `/events?view=dashboard&range=${range}`).text);
  });
}
