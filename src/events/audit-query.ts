import type { Recorded } from './envelope.js';
import { agentIndex, ifaceIndex, statusIndex, toolIndex, type EventIndex } from './event-index.js';
import type { EventLog } from './log.js';
import { fold } from './projection.js';
import { auditProjection, type AuditEntry } from './projections/audit.js';
import { eventAt, seqAfter } from './time-seek.js';
import { wholeRange } from './whole-read.js';

/** Which calls to show. Every field is optional; all given ones must match. */
export interface AuditFilter {
  /** Substring of the tool name. */
  tool?: string;
  status?: string;
  iface?: string;
  agent?: string;
  /** Inclusive bounds, as seqs or times. */
  since?: Bound;
  until?: Bound;
}

export type Bound = { seq: number } | { time: Date };

const CALL_TYPES = new Set([
  'call.requested',
  'call.params_coerced',
  'call.completed',
  'call.interrupted',
  'shadow.decided',
]);

/**
 * The newest `limit` calls matching `filter`, oldest first. Calls running now come from what the log
 * keeps open (`inflight`); with a filter an index answers (agent, tool, status, interface), only the
 * calls the index names are read, the others checked on each; otherwise the log is read backwards
 * until there are enough. A time `until` is first found among the seqs (`seqAfter`), so a page deep
 * in the log starts there. Either way the cost follows the answer rather than the size of the log.
 */
export async function recentCalls(log: EventLog, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
  const upTo = await seqUntil(log, filter);
  if (filter.status === 'running' && log.inflight) return runningCalls(log, filter, upTo, limit);
  const anchors = anchorsOf(log, filter, upTo);
  return anchors ? fromAnchors(log, anchors, filter, limit) : scanRecent(log, filter, upTo, limit);
}

/** Whether one audit entry passes the filter (used live by `logs --follow` too). */
export function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.tool !== undefined && !entry.tool.includes(filter.tool)) return false;
  if (filter.status !== undefined && (entry.status ?? 'running') !== filter.status) return false;
  if (filter.iface !== undefined && entry.iface !== filter.iface) return false;
  if (filter.agent !== undefined && entry.agentId !== filter.agent) return false;
  if (filter.until && 'time' in filter.until && new Date(entry.requestedAt) > filter.until.time) return false;
  return true;
}

/** Reads backwards from `upTo` for the calls that pass the filter, newest first, until there are `limit`. */
async function scanRecent(
  log: EventLog,
  filter: AuditFilter,
  upTo: number | undefined,
  limit: number,
): Promise<AuditEntry[]> {
  const results: AuditEntry[] = [];
  for await (const { callId, events } of callsBackwards(log, upTo, (event) => isBefore(event, filter.since))) {
    if (results.length >= limit) break;
    let entry = fold(events, auditProjection).byId.get(callId);
    // Read from a seq short of the head, a call may have ended past it: its own events say.
    if (entry && entry.status === undefined && upTo !== undefined)
      entry = fold(await log.readCall(callId), auditProjection).byId.get(callId);
    if (entry && matches(entry, filter)) results.push(entry);
  }
  return results.reverse();
}

/**
 * The calls whose request is at or before `upTo` (the head when undefined), newest first, each with
 * its events read so far in seq order, until `stop` says an event is too old. Events are grouped by
 * call as they are read backwards: a call's events all come after its `call.requested`.
 */
export async function* callsBackwards(
  log: EventLog,
  upTo: number | undefined,
  stop: (event: Recorded) => boolean = () => false,
): AsyncIterable<{ callId: string; events: Recorded[] }> {
  const pending = new Map<string, Recorded[]>();
  for await (const event of wholeRange(log, { reverse: true, to: upTo })) {
    if (stop(event)) return;
    if (!CALL_TYPES.has(event.type)) continue;
    const callId = (event.data as { callId: string }).callId;
    const group = pending.get(callId) ?? [];
    group.push(event);
    if (event.type !== 'call.requested') {
      pending.set(callId, group);
      continue;
    }
    pending.delete(callId);
    yield { callId, events: group.reverse() };
  }
}

interface Anchors {
  /** Seqs of the events that name a candidate call (its request or completion), newest first. */
  seqs: AsyncIterable<number>;
}

/**
 * The seqs an index gives for the most selective filter (agent, then tool, then status, then
 * interface), newest first: the events past the index's reach, read from the log, then the index's
 * own entries. The other filters are checked on each call. Undefined when no index applies (no such
 * filter, a log without indexes, `--status running` on a log that keeps nothing open).
 */
function anchorsOf(log: EventLog, filter: AuditFilter, before: number | undefined): Anchors | undefined {
  if (!log.lookup) return undefined;
  const lookup = log.lookup.bind(log);
  let index: EventIndex;
  let keys: string[];
  if (filter.agent !== undefined) [index, keys] = [agentIndex, [filter.agent]];
  else if (filter.tool !== undefined)
    [index, keys] = [toolIndex, (log.indexKeys?.(toolIndex.name) ?? []).filter((tool) => tool.includes(filter.tool!))];
  else if (filter.status !== undefined && filter.status !== 'running') [index, keys] = [statusIndex, [filter.status]];
  else if (filter.iface !== undefined) [index, keys] = [ifaceIndex, [filter.iface]];
  else return undefined;
  const answers = keys.map((key) => lookup(index.name, key, before));
  const covered = answers[0]?.covered ?? lookup(index.name, '', before).covered;
  const wanted = new Set(keys);
  const tail = async function* (): AsyncIterable<number> {
    for await (const event of wholeRange(log, { reverse: true, from: covered + 1, to: before })) {
      if (index.keys(event).some((key) => wanted.has(key) || (index === toolIndex && key.includes(filter.tool!))))
        yield event.seq;
    }
  };
  return {
    seqs: mergeDescending(
      tail,
      answers.map((answer) => answer.seqs),
    ),
  };
}

/** Builds the candidate calls the anchors name, newest first, until `limit` match. */
async function fromAnchors(log: EventLog, anchors: Anchors, filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
  const found: { entry: AuditEntry; requested: number }[] = [];
  const seen = new Set<string>();
  for await (const seq of anchors.seqs) {
    if (found.length >= limit) break;
    const anchor = await eventAt(log, seq);
    if (!anchor || isBefore(anchor, filter.since)) break;
    const callId = (anchor.data as { callId: string }).callId;
    if (seen.has(callId)) continue;
    seen.add(callId);
    const one = await callIfMatching(log, callId, filter);
    if (one) found.push(one);
  }
  return found.sort((a, b) => a.requested - b.requested).map(({ entry }) => entry);
}

/** A call read by its id, with the seq of its request, when it passes the filter. */
async function callIfMatching(
  log: EventLog,
  callId: string,
  filter: AuditFilter,
): Promise<{ entry: AuditEntry; requested: number } | undefined> {
  const events = await log.readCall(callId);
  const requested = events.find((event) => event.type === 'call.requested');
  const entry = fold(events, auditProjection).byId.get(callId);
  return requested && entry && requestInWindow(requested, filter) && matches(entry, filter)
    ? { entry, requested: requested.seq }
    : undefined;
}

/** The calls open now (what the log keeps in flight, a few at any size of log), newest `limit` matching. */
async function runningCalls(
  log: EventLog,
  filter: AuditFilter,
  upTo: number | undefined,
  limit: number,
): Promise<AuditEntry[]> {
  const found: { entry: AuditEntry; requested: number }[] = [];
  for (const { callId } of (await log.inflight!()).calls) {
    const one = await callIfMatching(log, callId, filter);
    if (one && (upTo === undefined || one.requested <= upTo)) found.push(one);
  }
  return found
    .sort((a, b) => a.requested - b.requested)
    .slice(Math.max(found.length - limit, 0))
    .map(({ entry }) => entry);
}

/** The tail (read first: it is newer than anything indexed), then the indexed lists merged newest first. */
async function* mergeDescending(tail: () => AsyncIterable<number>, lists: Iterable<number>[]): AsyncIterable<number> {
  yield* tail();
  const iterators = lists.map((list) => list[Symbol.iterator]());
  const heads = iterators.map((iterator) => iterator.next());
  for (;;) {
    let best = -1;
    for (const [i, head] of heads.entries())
      if (!head.done && (best < 0 || head.value > (heads[best].value as number))) best = i;
    if (best < 0) return;
    yield heads[best].value as number;
    heads[best] = iterators[best].next();
  }
}

/** The last seq to read: `until` as a seq, or the seq a time `until` falls at (undefined: the head). */
async function seqUntil(log: EventLog, filter: AuditFilter): Promise<number | undefined> {
  if (!filter.until) return undefined;
  return 'seq' in filter.until ? filter.until.seq : seqAfter(log, filter.until.time);
}

/** Whether a call's request is inside `since` and a seq `until` (`matches` checks a time `until`). */
export function requestInWindow(requested: Recorded, { since, until }: AuditFilter): boolean {
  return !isBefore(requested, since) && !isAfterSeq(requested, until);
}

function isAfterSeq(event: Recorded, bound: Bound | undefined): boolean {
  return bound !== undefined && 'seq' in bound && event.seq > bound.seq;
}

function isBefore(event: Recorded, bound: Bound | undefined): boolean {
  if (!bound) return false;
  return 'seq' in bound ? event.seq < bound.seq : new Date(event.at) < bound.time;
}
