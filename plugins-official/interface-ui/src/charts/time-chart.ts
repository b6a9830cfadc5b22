import type { DashboardFigures } from 'factorly';
import { html, type Html } from '../html.js';
import { stackOrder, statusClass } from '../status.js';
import { niceMax } from './scale.js';

const PLOT_HEIGHT = 100;
/** Share of a step a bar fills; the rest is the gap between bars. */
const BAR_SHARE = 0.78;

/**
 * Calls over time, stacked by status: one column per step of the range. The plot is an SVG
 * stretched to its box (bars only, no text, so nothing distorts); the axis labels and the legend
 * are HTML around it. Each segment carries a `<title>` with its time, status and count.
 */
export function timeChart(figures: DashboardFigures, timeLabel: (ms: number) => string): Html {
  const order = stackOrder(figures.timeline.flatMap((step) => Object.keys(step.statuses)));
  const tallest = Math.max(
    0,
    ...figures.timeline.map((step) => Object.values(step.statuses).reduce((a, b) => a + b, 0)),
  );
  const top = niceMax(tallest);
  const columns = figures.timeline.length;
  const bars = figures.timeline.map((step, index) => {
    let y = PLOT_HEIGHT;
    const segments = order.map((status) => {
      const count = step.statuses[status] ?? 0;
      if (count <= 0) return html``;
      const height = (count / top) * PLOT_HEIGHT;
      y -= height;
      return html`<rect class="${statusClass(status)}" x="${round(index + (1 - BAR_SHARE) / 2)}" y="${round(y)}" width="${BAR_SHARE}" height="${round(height)}"><title>${timeLabel(step.start)} · ${status}: ${count}</title></rect>`;
    });
    const calls = Object.values(step.statuses).reduce((a, b) => a + b, 0);
    if (calls <= 0) return html``;
    // The whole column links to its calls: the history of that step.
    return html`<a href="${stepHistory(step.start, figures.stepMs)}"><title>${timeLabel(step.start)}: ${calls} call${calls === 1 ? '' : 's'}</title><rect class="hit" x="${index}" y="0" width="1" height="${PLOT_HEIGHT}"/>${segments}</a>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => timeLabel(figures.from + share * (figures.to - figures.from)));
  return html`<figure class="timechart">
  <div class="y-axis" aria-hidden="true"><span>${top}</span><span>${top / 2}</span><span>0</span></div>
  <svg class="plot" viewBox="0 0 ${columns} ${PLOT_HEIGHT}" preserveAspectRatio="none" role="group" aria-label="Calls over time by status, ${figures.calls} in all">
    ${[0, 50, 100].map((y) => html`<line class="grid" x1="0" x2="${columns}" y1="${y}" y2="${y}" vector-effect="non-scaling-stroke"/>`)}
    ${bars}
  </svg>
  <div class="x-axis" aria-hidden="true">${ticks.map((tick) => html`<span>${tick}</span>`)}</div>
</figure>
${legend(order.length > 0 ? order : ['success', 'error', 'blocked'])}`;
}

/** /history for the calls requested within one step (`until` is inclusive: the step's last millisecond). */
export function stepHistory(start: number, stepMs: number): string {
  const window = { since: new Date(start).toISOString(), until: new Date(start + stepMs - 1).toISOString() };
  return `/history?${new URLSearchParams(window).toString()}`;
}

export function legend(statuses: readonly string[]): Html {
  return html`<ul class="legend">${statuses.map((status) => html`<li><span class="swatch ${statusClass(status)}"></span>${status}</li>`)}</ul>`;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
