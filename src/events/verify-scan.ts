import { ChainChecker, type ChainBreak, type ChainEntry } from './chain-check.js';
import type { LogCheckpointed } from './catalog.js';
import type { Recorded } from './envelope.js';
import { chainLeaf, CompactRange } from './merkle.js';
import { callIdOf, isGeneratedId } from './append-batch.js';
import { addEntry, emptyDigest, type Digest, type Seeds } from './index-digest.js';
import type { EventIndex } from './event-index.js';
import type { IndexEntry } from './lmdb-derived.js';
import { announcedKeyOf, type AnnouncedKey } from './writer-keys.js';

/** Raw access to a log for checking it: entries by position, and the indexes when it has them. */
export interface ScanSource {
  /** Entries in key order; a value may be reused by the next one, so it is read before moving on. */
  entries(from: number, to: number): Iterable<{ key: number; value: Uint8Array }>;
  /** The `ids` index: event id → seq. */
  seqOfId?(id: string): number | undefined;
  /** The `calls` index: whether it lists `seq` under `callId`. */
  callLists?(callId: string, seq: number): boolean;
  /** The `calls` index: every seq it lists under `callId`. */
  callSeqs?(callId: string): number[];
  /** Every entry of an index, in its own order: `ids` (id → seq), `calls` (callId → seq). */
  indexEntries?(name: 'ids' | 'calls'): Iterable<{ key: string; value: number }>;
  /** The registered indexes (the audit view's, a plugin's): whether one lists `seq` under `key`, and all their entries. */
  auditListed?(index: string, key: string, seq: number): boolean;
  auditEntries?(): Iterable<IndexEntry>;
}

/** The indexes verification sums: the log's own two, and the registered ones (`audit`: one sum for all of them). */
export type IndexName = 'ids' | 'calls' | 'audit';

/**
 * How a chunk checks the indexes: `digest` sums what the events call for (compared with the same
 * sum over each index, in one sequential pass of its own); `lookup` looks every entry up, to name
 * the ones that are wrong.
 */
export type IndexCheck = ({ mode: 'digest'; seeds: Seeds } | { mode: 'lookup' }) & {
  /** The registered indexes are checked for events up to this seq (what they say they cover; 0: not at all). */
  auditUpTo?: number;
};

/** What a chunk does for derived state: the registered indexes it sums or looks up, and each intact event handed on (to a fold). */
export interface ChunkDerived {
  indexes: readonly EventIndex[];
  keep?: (event: Recorded) => void;
}

export interface IndexProblem {
  index: string;
  /** The event whose entry is wrong, when one is. */
  seq?: number;
  reason: string;
}

/** What one stretch of the log holds, in a form that crosses a worker boundary. */
export interface ChunkSummary {
  from: number;
  /** Events read and found intact, in order from `from`. */
  count: number;
  /** The prevHash of the first event (checked against the previous chunk) and the hash of the last. */
  firstPrevHash?: string;
  lastHash?: string;
  /** The first position that did not hold; the chunk stops there. */
  broken?: ChainBreak;
  /** The chunk's leaves as a compact range (peaks as hex), and at the requested sizes inside it. */
  peaks: string[];
  snapshots: { size: number; peaks: string[] }[];
  latest: Record<string, number>;
  withCallId: number;
  /** Events whose id the writer chose (the ones the `ids` index holds, see isGeneratedId). */
  named: number;
  indexProblems: IndexProblem[];
  /**
   * With `digest`: the sums of (id, seq) over its named events, (callId, seq) over its call events
   * and (index and key, seq) over the audit view's keys of its events.
   */
  digests?: Record<IndexName, Digest>;
  /**
   * What the `inflight` index should hold, as its keys (`c:<callId>`, `s:<sessionId>`, for calls
   * and sessions of a known writer): opened here and not closed here; closed here, opened before.
   */
  opened: string[];
  closed: string[];
  checkpoints: { seq: number; data: LogCheckpointed }[];
  writerKeys: AnnouncedKey[];
}

const MAX_INDEX_PROBLEMS = 20;
const CLOSING = new Set(['call.completed', 'call.interrupted']);

/**
 * Checks the events from `from` to `to` (inclusive): the chain inside the stretch, its leaves,
 * and every index entry its events should have. Stretches are independent, so a long log is
 * checked in parallel and the summaries are joined in order (see joinChunks).
 */
export function scanChunk(
  source: ScanSource,
  from: number,
  to: number,
  sizes: readonly number[],
  indexes: IndexCheck = { mode: 'lookup' },
  derived: ChunkDerived = { indexes: [] },
): ChunkSummary {
  const summary: ChunkSummary = {
    from,
    count: 0,
    peaks: [],
    snapshots: [],
    latest: {},
    withCallId: 0,
    named: 0,
    indexProblems: [],
    opened: [],
    closed: [],
    checkpoints: [],
    writerKeys: [],
  };
  if (indexes.mode === 'digest') summary.digests = { ids: emptyDigest(), calls: emptyDigest(), audit: emptyDigest() };
  const auditUpTo = indexes.auditUpTo ?? 0;
  const checker = ChainChecker.after(from - 1, undefined);
  const range = new CompactRange();
  const wanted = new Set(sizes);
  const open = new Set<string>();
  // What the calls index lists for the calls opened in this chunk: one read per call, not per event.
  const listed = new Map<string, Set<number>>();
  for (const { key, value } of source.entries(from, to)) {
    const entry = parseEntry(key, value, true);
    const broken = checker.check(entry, () => undefined);
    if (broken) {
      summary.broken = broken;
      break;
    }
    const event = entry.event!;
    if (summary.count === 0) summary.firstPrevHash = event.prevHash;
    summary.count += 1;
    summary.lastHash = event.hash;
    range.push(chainLeaf(event.hash));
    if (wanted.has(event.seq)) summary.snapshots.push({ size: event.seq, peaks: hexes(range) });
    summary.latest[event.type] = event.seq;
    if (!isGeneratedId(event.id)) summary.named += 1;
    if (indexes.mode === 'digest') digestIndexes(event, summary, indexes.seeds, auditUpTo, derived.indexes);
    else checkIndexes(source, event, summary, listed, auditUpTo, derived.indexes);
    track(event, open, summary);
    derived.keep?.(event);
    if (CLOSING.has(event.type)) listed.delete(callIdOf(event)!);
  }
  if (!summary.broken && summary.count < to - from + 1) {
    const seq = from + summary.count;
    summary.broken = { seq, kind: 'deleted', reason: `expected seq ${seq}, found none` };
  }
  summary.peaks = hexes(range);
  summary.opened = [...open];
  return summary;
}

/** An entry as read; `withText` keeps the stored text, so the chain check can hash it as stored (see `storedHash`). */
export function parseEntry(key: number, value: Uint8Array, withText = false): ChainEntry {
  try {
    const text = Buffer.isBuffer(value)
      ? value.toString('utf8')
      : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
    return { key, event: JSON.parse(text) as Recorded, ...(withText ? { text } : {}) };
  } catch {
    return { key, error: `event log entry ${key} is not valid JSON` };
  }
}

function digestIndexes(
  event: Recorded,
  summary: ChunkSummary,
  seeds: Seeds,
  auditUpTo: number,
  indexes: readonly EventIndex[],
): void {
  if (!isGeneratedId(event.id)) addEntry(summary.digests!.ids, seeds, event.id, event.seq);
  if (event.seq <= auditUpTo)
    for (const [index, key] of keysOf(event, indexes))
      addEntry(summary.digests!.audit, seeds, `${index}\0${key}`, event.seq);
  const callId = callIdOf(event);
  if (callId === undefined) return;
  summary.withCallId += 1;
  addEntry(summary.digests!.calls, seeds, callId, event.seq);
}

/** The keys the registered indexes give an event, as `[index, key]`. */
function* keysOf(event: Recorded, indexes: readonly EventIndex[]): Iterable<[string, string]> {
  for (const index of indexes) for (const key of index.keys(event)) yield [index.name, key];
}

function checkIndexes(
  source: ScanSource,
  event: Recorded,
  summary: ChunkSummary,
  listed: Map<string, Set<number>>,
  auditUpTo: number,
  indexes: readonly EventIndex[],
): void {
  const problems = summary.indexProblems;
  const report = (index: string, reason: string): void => {
    if (problems.length < MAX_INDEX_PROBLEMS) problems.push({ index, seq: event.seq, reason });
  };
  if (event.seq <= auditUpTo && source.auditListed) {
    for (const [index, key] of keysOf(event, indexes)) {
      if (!source.auditListed(index, key, event.seq))
        report(
          index,
          `event ${event.seq} (${event.type}) is missing from the ${index} index under ${JSON.stringify(key)}, so logs --${index} leaves it out`,
        );
    }
  }
  if (source.seqOfId) {
    const seq = source.seqOfId(event.id);
    const expected = !isGeneratedId(event.id) || seq !== undefined;
    if (expected && seq !== event.seq)
      report(
        'ids',
        `event ${event.seq} (id ${event.id}) is ${seq === undefined ? 'missing from' : `listed at seq ${seq} in`} the ids index`,
      );
  }
  const callId = callIdOf(event);
  if (callId === undefined) return;
  summary.withCallId += 1;
  if (event.type === 'call.requested' && source.callSeqs) listed.set(callId, new Set(source.callSeqs(callId)));
  const seqs = listed.get(callId);
  const inIndex = seqs ? seqs.has(event.seq) : (source.callLists?.(callId, event.seq) ?? true);
  if (!inIndex) {
    report(
      'calls',
      `event ${event.seq} (${event.type} of call ${callId}) is missing from the calls index, so the call reads without it`,
    );
  }
}

function track(event: Recorded, open: Set<string>, summary: ChunkSummary): void {
  if (event.type === 'log.checkpointed') summary.checkpoints.push({ seq: event.seq, data: event.data });
  const announced = announcedKeyOf(event);
  if (announced) summary.writerKeys.push(announced);
  const item = inflightKey(event);
  if (!item) return;
  if (item.opens) open.add(item.key);
  else if (!open.delete(item.key)) summary.closed.push(item.key);
}

/** The `inflight` key an event opens or closes (calls and sessions of a known writer). */
function inflightKey(event: Recorded): { key: string; opens: boolean } | undefined {
  switch (event.type) {
    case 'call.requested':
      return event.data.writer ? { key: `c:${event.data.callId}`, opens: true } : undefined;
    case 'call.completed':
    case 'call.interrupted':
      return { key: `c:${event.data.callId}`, opens: false };
    case 'session.opened':
      return event.data.writer ? { key: `s:${event.data.sessionId}`, opens: true } : undefined;
    case 'session.closed':
      return { key: `s:${event.data.sessionId}`, opens: false };
    default:
      return undefined;
  }
}

function hexes(range: CompactRange): string[] {
  return range.peaks.map((peak) => peak.toString('hex'));
}
