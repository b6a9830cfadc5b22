import { callsBackwards, matches, requestInWindow, type AuditFilter } from './audit-query.js';
import type { EventLog } from './log.js';
import { fold } from './projection.js';
import { auditProjection, type AuditEntry } from './projections/audit.js';

/** How many of the newest calls a text search reads: a bounded scan, not an index every call would pay for. */
export const SEARCH_SCAN_CALLS = 10_000;

/**
 * What a search found, and how: the call of that id, or among the newest `scanned` calls read
 * (`complete`: every call the log holds); `more`: it stopped at `limit` matches.
 */
export interface CallSearch {
  entries: AuditEntry[];
  by: 'id' | 'scan';
  scanned: number;
  complete: boolean;
  more: boolean;
}

/**
 * Calls found by `text`: the call of that id (the log's call index, exact), else among the newest
 * `scanCalls` calls, those whose recorded hash starts with it (4+ hex characters) or whose id, tool,
 * params, agent or error contain it (case-insensitive), that also pass `filter`; newest `limit`,
 * oldest first.
 */
export async function searchCalls(
  log: EventLog,
  text: string,
  options: { filter?: AuditFilter; limit: number; scanCalls?: number },
): Promise<CallSearch> {
  const query = text.trim();
  const filter = options.filter ?? {};
  const direct = fold(await log.readCall(query), auditProjection).byId.get(query);
  if (direct)
    return { entries: matches(direct, filter) ? [direct] : [], by: 'id', scanned: 1, complete: true, more: false };
  const needle = query.toLowerCase();
  const hashPrefix = /^[0-9a-f]{4,64}$/.test(needle) ? needle : undefined;
  const cap = options.scanCalls ?? SEARCH_SCAN_CALLS;
  const found: AuditEntry[] = [];
  let scanned = 0;
  for await (const { callId, events } of callsBackwards(log, undefined)) {
    if (scanned >= cap) return { entries: found.reverse(), by: 'scan', scanned, complete: false, more: false };
    scanned += 1;
    const entry = fold(events, auditProjection).byId.get(callId);
    if (!entry || !matches(entry, filter) || !requestInWindow(events[0], filter)) continue;
    const hit = hashPrefix !== undefined && events.some((event) => event.hash.startsWith(hashPrefix));
    if (hit || searchText(entry).includes(needle)) found.push(entry);
    if (found.length >= options.limit)
      return { entries: found.reverse(), by: 'scan', scanned, complete: false, more: true };
  }
  return { entries: found.reverse(), by: 'scan', scanned, complete: true, more: false };
}

/** What a text search looks in: what the history row shows, and the params. */
function searchText(entry: AuditEntry): string {
  const { callId, tool, agentId, status, error, params } = entry;
  return [callId, tool, agentId ?? '', status ?? 'running', error ?? '', JSON.stringify(params)]
    .join('\n')
    .toLowerCase();
}
