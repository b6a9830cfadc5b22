import { readTimeBound, TIME_BOUND_FORMS } from '@factorly/text-kit';
import type { AgentDirectory, AuditEntry, AuditFilter } from 'factorly';
import type { Context, Hono } from 'hono';
import { agentName, agentText } from '../agents.js';
import type { AppDeps } from '../app-deps.js';
import { callHref, HISTORY_HEAD, historyRow } from '../history-view.js';
import { html, Html } from '../html.js';
import { layout, notice, scrolling } from '../layout.js';
import { searchNote } from './history-search.js';

const PAGE_SIZE = 100;
/** Rows read beyond a page when it starts at a boundary: the calls of the boundary's millisecond already shown. */
const SAME_TIME_SLACK = 50;
const STATUSES = ['success', 'error', 'blocked', 'cancelled', 'timeout', 'interrupted', 'running'];
const IFACES = ['cli', 'mcp', 'code', 'ui'];
/** Agents offered in the filter: the most recent sessions. */
const AGENT_CHOICES = 50;
/** The query keys that filter by a value, as the live stream takes them too. */
const VALUE_FILTERS = ['tool', 'status', 'agent', 'iface'] as const;

/** The value filters of /history from its query string (empty fields mean "any"). */
export function filterOf(query: Record<string, string>): AuditFilter {
  const filter: AuditFilter = {};
  for (const key of VALUE_FILTERS) if (query[key]?.trim()) filter[key] = query[key].trim();
  return filter;
}

/**
 * The time window of /history: `since`/`until` as `factorly logs` reads them (a seq, a duration
 * ago, a time) and `before`, where the page before ended (the "Older" link): its oldest row, as
 * `<time>~<call id>`. A value none of those is a problem named on the page, never a filter dropped.
 */
function windowOf(query: Record<string, string>, filter: AuditFilter): string[] {
  const problems: string[] = [];
  for (const key of ['since', 'until'] as const) {
    const value = query[key]?.trim();
    if (!value) continue;
    const bound = readTimeBound(value);
    if (bound) filter[key] = bound;
    else problems.push(`${key}: expected ${TIME_BOUND_FORMS}, got ${JSON.stringify(query[key])}`);
  }
  const before = boundaryOf(query.before);
  if (before === null)
    problems.push(`before: expected where a page ended (<time>~<call id>), got ${JSON.stringify(query.before)}`);
  else if (before && (!filter.until || ('time' in filter.until && filter.until.time >= before.time)))
    filter.until = { time: before.time };
  return problems;
}

interface Boundary {
  time: Date;
  callId: string;
}

/** `before=<time>~<call id>`; null when it is not one, undefined when there is none. */
function boundaryOf(value: string | undefined): Boundary | null | undefined {
  if (!value?.trim()) return undefined;
  const at = value.lastIndexOf('~');
  const time = at > 0 ? Date.parse(value.slice(0, at)) : Number.NaN;
  return Number.isNaN(time) || at === value.length - 1 ? null : { time: new Date(time), callId: value.slice(at + 1) };
}

/**
 * One page of calls, newest first. Past a boundary the window ends at its time, inclusive (calls
 * recorded in the same millisecond are not lost), and the rows up to the boundary's call, which the
 * page before showed, are dropped.
 */
async function pageOf(deps: AppDeps, filter: AuditFilter, query: Record<string, string>): Promise<AuditEntry[]> {
  const before = boundaryOf(query.before);
  const entries = (await deps.services.recentCalls(filter, PAGE_SIZE + (before ? SAME_TIME_SLACK : 0))).reverse();
  if (!before) return entries;
  const shown = entries.findIndex((entry) => entry.callId === before.callId);
  const rest =
    shown >= 0 ? entries.slice(shown + 1) : entries.filter((e) => Date.parse(e.requestedAt) < before.time.getTime());
  return rest.slice(0, PAGE_SIZE);
}

function select(
  name: string,
  label: string,
  options: readonly (readonly [string, string])[],
  value: string | undefined,
): Html {
  return html`<label>${label}<select name="${name}"><option value="">any</option>${options.map(
    ([option, text]) => html`<option value="${option}"${option === value ? html` selected` : ''}>${text}</option>`,
  )}</select></label>`;
}

/** The agents to offer: the newest sessions, plus the one filtered on when it is older. */
function agentChoices(agents: AgentDirectory, chosen: string | undefined): [string, string][] {
  const newest = [...agents.values()]
    .sort((a, b) => b.openedAt.localeCompare(a.openedAt))
    .slice(0, AGENT_CHOICES)
    .map((a) => a.agentId);
  if (chosen && !newest.includes(chosen)) newest.unshift(chosen);
  return newest.map((id) => [id, agentText(agentName(id, agents))]);
}

function filtersForm(query: Record<string, string>, filter: AuditFilter, agents: AgentDirectory): Html {
  return html`<form class="filters" method="get" action="/history">
  <label>Search<input type="search" name="q" value="${query.q ?? ''}" placeholder="call id, hash or text" size="18"></label>
  <label>Tool<input name="tool" value="${filter.tool ?? ''}" placeholder="any"></label>
  ${select(
    'status',
    'Status',
    STATUSES.map((s) => [s, s] as const),
    filter.status,
  )}
  ${select('agent', 'Agent', agentChoices(agents, filter.agent), filter.agent)}
  ${select(
    'iface',
    'Interface',
    IFACES.map((s) => [s, s] as const),
    filter.iface,
  )}
  <label>Since<input name="since" value="${query.since ?? ''}" placeholder="15m, 2h, a time" size="12"></label>
  <label>Until<input name="until" value="${query.until ?? ''}" placeholder="a time" size="12"></label>
  <button type="submit">Filter</button>
</form>`;
}

/** The same query with other values (an empty value drops the key). */
function withQuery(query: Record<string, string>, changes: Record<string, string>): string {
  const next = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...changes })) if (value) next.set(key, value);
  return `/history?${next.toString()}`;
}

function pager(query: Record<string, string>, entries: readonly AuditEntry[]): Html {
  const last = entries.at(-1);
  const older =
    entries.length === PAGE_SIZE ? withQuery(query, { before: `${last!.requestedAt}~${last!.callId}` }) : undefined;
  if (!older && !query.before) return html``;
  return html`<nav class="pager" aria-label="Pages">${query.before ? html`<a href="${withQuery(query, { before: '' })}">Newest</a>` : ''}${older ? html`<a href="${older}" rel="next">Older</a>` : ''}</nav>`;
}

function emptyState(filtered: boolean): Html {
  return html`<p id="history-empty" class="empty">${
    filtered
      ? html`No calls match these filters. <a href="/history">Show all calls</a>`
      : 'No calls yet. They appear here as they happen.'
  }</p>`;
}

/** The rows of the page, with what is said about how they were found (a search's reach), or a problem reading them. */
async function rowsOf(
  deps: AppDeps,
  filter: AuditFilter,
  query: Record<string, string>,
): Promise<{ entries: AuditEntry[]; notes: Html }> {
  const text = query.q?.trim();
  if (!text) return { entries: await pageOf(deps, filter, query), notes: html`` };
  const found = await deps.services.searchCalls(text, filter, PAGE_SIZE);
  return { entries: [...found.entries].reverse(), notes: searchNote(text, found) };
}

/** The table and what follows it, once its rows are read. */
async function results(
  deps: AppDeps,
  filter: AuditFilter,
  query: Record<string, string>,
  agents: AgentDirectory,
): Promise<Html> {
  let found: { entries: AuditEntry[]; notes: Html };
  try {
    found = await rowsOf(deps, filter, query);
  } catch (error) {
    return notice('error', [`The calls could not be read: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const { entries, notes } = found;
  return html`${notes}${scrolling(
    'Calls',
    html`<table class="history">
${HISTORY_HEAD}
<tbody id="history-rows">${entries.map((entry) => historyRow(entry, agents))}</tbody>
</table>`,
  )}
${entries.length === 0 ? emptyState(Object.keys(filter).length > 0 || Boolean(query.q?.trim())) : ''}
${query.q?.trim() ? '' : pager(query, entries)}`;
}

/** Where the streamed part of the page goes. */
const STREAMED = '<!--history-results-->';

/**
 * The page is sent in two parts: everything down to the filters at once, with a "Loading calls…"
 * note, then the table when its rows are read (the note is hidden by CSS once the table is there:
 * no script needed). A query that cannot be read is answered whole, with a 400.
 */
function streamed(c: Context, head: string, tail: string, rest: () => Promise<Html>): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode(head));
      // Reading the log runs without yielding to the event loop: let the server send the head first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      controller.enqueue(encoder.encode((await rest()).text + tail));
      controller.close();
    },
  });
  c.header('Content-Type', 'text/html; charset=utf-8');
  // Chunked: the server then sends each part as it comes instead of waiting to count the bytes.
  c.header('Transfer-Encoding', 'chunked');
  return c.body(body);
}

export function registerHistory(app: Hono, deps: AppDeps): void {
  app.get('/history', async (c) => {
    const query = c.req.query();
    const filter = filterOf(query);
    const values = { ...filter } as Record<string, string>;
    const problems = windowOf(query, filter);
    const agents = await deps.services.agents();
    // A window that ends in the past, or a search, gets no new rows; any other view follows the log.
    const live = filter.until || query.q?.trim() ? '' : `/events?${new URLSearchParams(values).toString()}`;
    const top = html`<h1>History</h1>
${filtersForm(query, filter, agents)}
${notice('error', problems)}`;
    if (problems.length > 0) return c.html(layout('History', '/history', top, deps.page(), live).text, 400);
    const page = layout(
      'History',
      '/history',
      html`${top}
<p id="history-loading" class="loading" role="status">Loading calls…</p>
${new Html(STREAMED)}`,
      deps.page(),
      live,
    ).text;
    const at = page.indexOf(STREAMED);
    return streamed(c, page.slice(0, at), page.slice(at + STREAMED.length), () => results(deps, filter, query, agents));
  });

  // The call page moved to /calls/<id>; links written before keep working.
  app.get('/history/:callId', (c) => c.redirect(callHref(c.req.param('callId')), 301));
}
