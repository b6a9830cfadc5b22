// The web UI's /history on a big log: for each view (no filter, a status, running calls, an
// interface, an agent, a tool with a status, the last 10 minutes) the first page and the page its
// "Older" link leads to (`before=<time>~<call id>`), each read to its end; medians of `requests`;
// and two windows that end 6 h back, half-way through the log.
import { now, round, summarize } from './stats.mjs';

export const HISTORY_TARGET_MS = 300;
export const HISTORY_VIEWS = [
  ['no filter', ''],
  ['status=error', 'status=error'],
  ['status=running', 'status=running'],
  ['iface=cli', 'iface=cli'],
  ['agent', 'agent=agent-3'],
  ['tool+status', 'tool=tool.7&status=error'],
  ['since=10m', 'since=10m'],
  // Pages deep in the log: the window ends 6 h back, half-way through the bench's 12 h.
  ['until=6h', 'until=6h'],
  ['status=error until=6h', 'status=error&until=6h'],
  // Search: a call id (its index), and text no call holds (the whole bounded scan of the newest calls).
  ['search by call id', 'q=call-999'],
  ['search text, no match', 'q=no-such-text'],
];

/** Times each view's first and later page; `get(path)` answers `{ ms, body }`. */
export async function historyLatencies(get, requests) {
  const views = [];
  for (const [name, query] of HISTORY_VIEWS) {
    const first = [];
    const later = [];
    let older;
    let rows = 0;
    for (let k = 0; k < requests; k += 1) {
      const page = await get(`/history?${query}`);
      first.push(page.ms);
      rows = (page.body.match(/<tr id="call-/g) ?? []).length;
      older = /<a href="([^"]+)" rel="next">/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
      if (older) later.push((await get(older)).ms);
    }
    views.push({ name, query, rows, first: summarize(first), later: later.length ? summarize(later) : undefined });
  }
  return views;
}

/** A row per view: the slower of its first and later page against the target. */
export function historyRows(n, history) {
  if (!history) return [{ benchmark: 'audit: web UI /history', value: 'failed', unit: '', notes: 'see failures' }];
  return history.map((view) => {
    const worst = Math.max(view.first.medianMs, view.later?.medianMs ?? 0);
    const later = view.later
      ? `later page (before=) ${view.later.medianMs} ms`
      : 'no later page (one page holds every match)';
    return {
      benchmark: `audit: web UI GET /history ${view.name} on ${n} events, median`,
      value: round(worst, 1),
      unit: 'ms',
      notes: `first page ${view.first.medianMs} ms (${view.rows} rows), ${later} (n=${view.first.n}); target <= ${HISTORY_TARGET_MS} ms: ${worst <= HISTORY_TARGET_MS ? 'MET' : 'NOT MET'}`,
    };
  });
}

/** Times one GET, the page read to its end; throws on anything but 200. */
export function timedGet(origin, cookie) {
  return async (path) => {
    const t = now();
    const response = await fetch(new URL(path, origin), { headers: { cookie } });
    const body = await response.text();
    const ms = now() - t;
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${body.slice(0, 200)}`);
    return { ms, body };
  };
}
