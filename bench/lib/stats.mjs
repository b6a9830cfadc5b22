// Small statistics and formatting helpers shared by the bench scripts (Node built-ins only).
import { performance } from 'node:perf_hooks';

/** Milliseconds since an arbitrary origin, sub-millisecond resolution. */
export const now = () => performance.now();

/** Wall-clock epoch milliseconds with sub-millisecond resolution, comparable across processes. */
export const epochMs = () => performance.timeOrigin + performance.now();

/** Nearest-rank percentile (p in 0..100) of a list of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1];
}

/** Median; the mean of the two middle values for even counts. */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summarize(samples) {
  const sum = samples.reduce((a, b) => a + b, 0);
  return {
    n: samples.length,
    medianMs: round(median(samples)),
    p90Ms: round(percentile(samples, 90)),
    minMs: round(Math.min(...samples)),
    maxMs: round(Math.max(...samples)),
    meanMs: round(sum / samples.length),
  };
}

export function round(value, digits = 3) {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** 12345.6 -> "12,346"; 1.234 -> "1.23". */
export function fmt(value) {
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Renders rows of { benchmark, value, unit, notes } as an aligned plain-text table. */
export function renderTable(rows) {
  const header = { benchmark: 'benchmark', value: 'value', unit: 'unit', notes: 'notes' };
  const cells = [header, ...rows.map((r) => ({ ...r, value: fmt(r.value) }))];
  const width = (key) => Math.max(...cells.map((c) => String(c[key]).length));
  const w = { benchmark: width('benchmark'), value: width('value'), unit: width('unit') };
  const line = (c) =>
    [
      String(c.benchmark).padEnd(w.benchmark),
      // numbers right-aligned, the header left-aligned over them
      c === header ? String(c.value).padEnd(w.value) : String(c.value).padStart(w.value),
      String(c.unit).padEnd(w.unit),
      String(c.notes ?? ''),
    ]
      .join('  ')
      .trimEnd();
  const rule = '-'.repeat(Math.max(...cells.map((c) => line(c).length)));
  return [line(header), rule, ...rows.map((_, i) => line(cells[i + 1]))].join('\n');
}
