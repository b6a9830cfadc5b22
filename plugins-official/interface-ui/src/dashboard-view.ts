import type { AgentDirectory, DashboardFigures, DashboardRange } from 'factorly';
import { agentLabel, agentName, agentText } from './agents.js';
import { bar, barList } from './charts/bars.js';
import { percent } from './charts/scale.js';
import { timeChart } from './charts/time-chart.js';
import { count, duration, html, type Html } from './html.js';
import { scrolling } from './layout.js';
import { statusClass } from './status.js';

export const RANGES = ['1h', '24h', '7d'] as const satisfies readonly DashboardRange[];
export const RANGE_LABELS: Record<DashboardRange, string> = {
  '1h': 'last hour',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
};

/** Everything below the range picker; the live stream sends the same markup when figures change. */
export function dashboardPanels(figures: DashboardFigures, agents: AgentDirectory): Html {
  const ended = (status: string): number => figures.statuses.find((s) => s.status === status)?.calls ?? 0;
  const label = (ms: number): string => timeLabel(figures.range, ms);
  const inRange = (extra: Record<string, string> = {}): string => rangeHistory(figures, extra);
  return html`<section class="tiles" aria-label="Totals">
  ${tile('Calls', count(figures.calls), inRange())}
  ${tile('Succeeded', figures.calls === 0 ? '—' : `${Math.round(percent(ended('success'), figures.calls))} %`, inRange({ status: 'success' }))}
  ${tile('Errors', count(ended('error')), inRange({ status: 'error' }), ended('error') > 0 ? 's-error' : '')}
  ${tile('Blocked', count(ended('blocked')), inRange({ status: 'blocked' }), ended('blocked') > 0 ? 's-blocked' : '')}
  ${tile('Agents', count(figures.agentCount), '/agents')}
</section>
<section class="panel"><h2>Calls over time <small>${RANGE_LABELS[figures.range]}, by status · UTC · select a bar for its calls</small></h2>${timeChart(figures, label)}</section>
<div class="panels">
  <section class="panel"><h2>Top tools</h2>${barList(
    figures.tools.map((t) => ({ label: html`${t.tool}`, value: t.calls, href: inRange({ tool: t.tool }) })),
    'tools-chart',
    'No calls in this range.',
  )}</section>
  <section class="panel"><h2>Calls per agent</h2>${barList(
    figures.agents.map((a) => {
      const name = agentName(a.agent, agents);
      const own: Record<string, string> = a.agent.startsWith('iface:') ? { iface: name.name } : { agent: a.agent };
      return { label: agentLabel(name), value: a.calls, title: agentText(name), valueHref: inRange(own) };
    }),
    'agents-chart',
    'No calls in this range.',
  )}</section>
  <section class="panel"><h2>Blocked calls <small>by rule</small></h2>${blockedTable(figures)}</section>
  <section class="panel"><h2>Duration by tool <small>p50 / p95 of the calls that ran</small></h2>${durationTable(figures)}</section>
</div>
<p class="muted as-of">${count(figures.calls)} calls from ${fullTime(figures.from)} to ${fullTime(figures.to)} UTC.</p>`;
}

/** /history for the dashboard's range, with more filters. */
export function rangeHistory(figures: Pick<DashboardFigures, 'from'>, extra: Record<string, string> = {}): string {
  return `/history?${new URLSearchParams({ ...extra, since: new Date(figures.from).toISOString() }).toString()}`;
}

export function tile(name: string, value: string, href?: string, tone = ''): Html {
  const inner = html`<span class="tile-value ${tone}">${value}</span><span class="tile-name">${name}</span>`;
  return href ? html`<a class="tile" href="${href}">${inner}</a>` : html`<div class="tile">${inner}</div>`;
}

function blockedTable(figures: DashboardFigures): Html {
  if (figures.blocked.length === 0) return html`<p class="muted empty-chart">Nothing was blocked in this range.</p>`;
  const top = Math.max(...figures.blocked.map((b) => b.calls));
  const history = rangeHistory(figures, { status: 'blocked' });
  return html`${scrolling(
    'Blocked calls by rule',
    html`<table class="blocked-table"><thead><tr><th>Rule</th><th>Most frequent reasons</th><th class="num">Calls</th></tr></thead><tbody>${figures.blocked.map(
      (b) =>
        html`<tr><td><span class="badge badge-shadow">${b.rule}</span></td><td class="reason">${reasons(b)}</td><td class="num"><a class="num-bar" href="${history}">${bar(percent(b.calls, top), statusClass('blocked'))}${count(b.calls)}</a></td></tr>`,
    )}</tbody></table>`,
  )}`;
}

/** A rule's most frequent reasons, each with its count when there are several. */
function reasons(blocked: DashboardFigures['blocked'][number]): Html {
  if (blocked.reasons.length === 0) return html`—`;
  if (blocked.reasons.length === 1) return html`${blocked.reasons[0].reason || '—'}`;
  return html`<ul class="reasons">${blocked.reasons.map((r) => html`<li>${r.reason || '—'} <span class="muted">× ${count(r.calls)}</span></li>`)}</ul>`;
}

function durationTable(figures: DashboardFigures): Html {
  if (figures.durations.length === 0) return html`<p class="muted empty-chart">No call ran in this range.</p>`;
  const slowest = Math.max(...figures.durations.map((d) => d.p95));
  return html`${scrolling(
    'Duration by tool',
    html`<table class="durations"><thead><tr><th>Tool</th><th class="num">Calls</th><th class="num">p50</th><th class="num">p95</th><th class="spread"><span class="visually-hidden">p50 and p95 drawn to scale</span></th></tr></thead><tbody>${figures.durations.map(
      (d) =>
        html`<tr><td class="t-tool"><a href="${rangeHistory(figures, { tool: d.tool })}">${d.tool}</a></td><td class="num">${count(d.calls)}</td><td class="num">${duration(d.p50)}</td><td class="num">${duration(d.p95)}</td><td class="spread">${spread(percent(d.p50, slowest), percent(d.p95, slowest))}</td></tr>`,
    )}</tbody></table>`,
  )}${legendOfSpread()}`;
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
