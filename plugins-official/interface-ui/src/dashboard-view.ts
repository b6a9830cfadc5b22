import type { AgentDirectory, DashboardFigures, DashboardRange } from 'factorly';
import { agentLabel, agentName, agentText } from './agents.js';
import { bar, barList } from './charts/bars.js';
import { percent } from './charts/scale.js';
import { timeChart } from './charts/time-chart.js';
import { duration, html, type Html } from './html.js';
import { statusClass } from './status.js';

export const RANGES = ['1h', '24h', '7d'] as const satisfies readonly DashboardRange[];
export const RANGE_LABELS: Record<DashboardRange, string> = {
  '1h': 'last hour',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
};

/** Everything below the range picker; the live stream sends the same markup when figures change. */
export function dashboardPanels(figures: DashboardFigures, agents: AgentDirectory): Html {
  const count = (status: string): number => figures.statuses.find((s) => s.status === status)?.calls ?? 0;
  const label = (ms: number): string => timeLabel(figures.range, ms);
  return html`<section class="tiles" aria-label="Totals">
  ${tile('Calls', String(figures.calls), '/history')}
  ${tile('Succeeded', figures.calls === 0 ? '—' : `${Math.round(percent(count('success'), figures.calls))} %`, '/history?status=success')}
  ${tile('Errors', String(count('error')), '/history?status=error', count('error') > 0 ? 's-error' : '')}
  ${tile('Blocked', String(count('blocked')), '/history?status=blocked', count('blocked') > 0 ? 's-blocked' : '')}
  ${tile('Agents', String(figures.agentCount))}
</section>
<section class="panel"><h2>Calls over time <small>${RANGE_LABELS[figures.range]}, by status · UTC</small></h2>${timeChart(figures, label)}</section>
<div class="panels">
  <section class="panel"><h2>Top tools</h2>${barList(
    figures.tools.map((t) => ({
      label: html`${t.tool}`,
      value: t.calls,
      href: `/history?tool=${encodeURIComponent(t.tool)}`,
    })),
    'tools-chart',
    'No calls in this range.',
  )}</section>
  <section class="panel"><h2>Calls per agent</h2>${barList(
    figures.agents.map((a) => {
      const name = agentName(a.agent, agents);
      return {
        label: agentLabel(name),
        value: a.calls,
        title: agentText(name),
        href: name.id ? `/history?agent=${encodeURIComponent(name.id)}` : undefined,
      };
    }),
    'agents-chart',
    'No calls in this range.',
  )}</section>
  <section class="panel"><h2>Blocked calls <small>by rule and reason</small></h2>${blockedTable(figures)}</section>
  <section class="panel"><h2>Duration by tool <small>p50 / p95 of the calls that ran</small></h2>${durationTable(figures)}</section>
</div>
<p class="muted as-of">${figures.calls} calls from ${fullTime(figures.from)} to ${fullTime(figures.to)} UTC.</p>`;
}

function tile(name: string, value: string, href?: string, tone = ''): Html {
  const inner = html`<span class="tile-value ${tone}">${value}</span><span class="tile-name">${name}</span>`;
  return href ? html`<a class="tile" href="${href}">${inner}</a>` : html`<div class="tile">${inner}</div>`;
}

function blockedTable(figures: DashboardFigures): Html {
  if (figures.blocked.length === 0) return html`<p class="muted empty-chart">Nothing was blocked in this range.</p>`;
  const top = Math.max(...figures.blocked.map((b) => b.calls));
  return html`<div class="table-wrap"><table class="blocked-table"><thead><tr><th>Rule</th><th>Reason</th><th class="num">Calls</th></tr></thead><tbody>${figures.blocked.map(
    (b) =>
      html`<tr><td><span class="badge badge-shadow">${b.rule}</span></td><td class="reason">${b.reason || '—'}</td><td class="num"><span class="num-bar">${bar(percent(b.calls, top), statusClass('blocked'))}${b.calls}</span></td></tr>`,
  )}</tbody></table></div>`;
}

function durationTable(figures: DashboardFigures): Html {
  if (figures.durations.length === 0) return html`<p class="muted empty-chart">No call ran in this range.</p>`;
  const slowest = Math.max(...figures.durations.map((d) => d.p95));
  return html`<div class="table-wrap"><table class="durations"><thead><tr><th>Tool</th><th class="num">Calls</th><th class="num">p50</th><th class="num">p95</th><th class="spread" aria-hidden="true"></th></tr></thead><tbody>${figures.durations.map(
    (d) =>
      html`<tr><td class="t-tool"><a href="/history?tool=${encodeURIComponent(d.tool)}">${d.tool}</a></td><td class="num">${d.calls}</td><td class="num">${duration(d.p50)}</td><td class="num">${duration(d.p95)}</td><td class="spread">${spread(percent(d.p50, slowest), percent(d.p95, slowest))}</td></tr>`,
  )}</tbody></table></div>${legendOfSpread()}`;
}

/** p50 as the dark bar, p95 as the light one behind it, on one scale for all tools. */
function spread(p50: number, p95: number): Html {
  return html`<svg class="bar spread-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect class="track" width="100" height="10"/><rect class="p95" width="${p95}" height="10"/><rect class="p50" width="${p50}" height="10"/></svg>`;
}

function legendOfSpread(): Html {
  return html`<ul class="legend"><li><span class="swatch p50"></span>p50</li><li><span class="swatch p95"></span>p95</li></ul>`;
}

/** Axis labels: the time of day for hours, the date and hour for days (UTC, as the rest of the UI). */
export function timeLabel(range: DashboardRange, ms: number): string {
  const iso = new Date(ms).toISOString();
  return range === '7d' ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}h` : iso.slice(11, 16);
}

function fullTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}
