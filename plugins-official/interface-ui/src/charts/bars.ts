import { count, html, type Html } from '../html.js';
import { percent } from './scale.js';

export interface BarRow {
  label: Html;
  value: number;
  /** Shown instead of the value (a formatted duration). */
  shown?: string;
  /** Where the label links to (a label that is a link itself has none). */
  href?: string;
  /** Where the value links to. */
  valueHref?: string;
  title?: string;
}

/**
 * A ranked list as horizontal bars: the label and value are HTML (they wrap and stay legible at
 * any width); each bar is a small SVG stretched to its cell, drawn to scale against the largest.
 */
export function barList(rows: readonly BarRow[], className: string, empty: string): Html {
  if (rows.length === 0) return html`<p class="muted empty-chart">${empty}</p>`;
  const top = Math.max(...rows.map((row) => row.value));
  return html`<ol class="bars ${className}">${rows.map(
    (row) => html`<li${row.title ? html` title="${row.title}"` : ''}>
  <span class="bar-label">${row.href ? html`<a href="${row.href}">${row.label}</a>` : row.label}</span>
  ${bar(percent(row.value, top))}
  <span class="bar-value">${row.valueHref ? html`<a href="${row.valueHref}">${row.shown ?? count(row.value)}</a>` : (row.shown ?? count(row.value))}</span>
</li>`,
  )}</ol>`;
}

/** One bar, `width` percent of its track. */
export function bar(width: number, className = ''): Html {
  return html`<svg class="bar ${className}" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect class="track" width="100" height="10"/><rect class="fill" width="${width}" height="10"/></svg>`;
}
