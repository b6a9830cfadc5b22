// A log file's indexes and stored Merkle tree, judged against what its events say they should hold.
import type { Finding } from './verify-checkpoints.js';
import { INDEX_NAMES, joinChunks, type JoinedScan } from './verify-join.js';
import { scanAll, type ChunkRequest, type IndexSummary, type ScanDerived, type ScanJob } from './verify-parallel.js';
import type { ChunkSummary, IndexName, IndexProblem, ScanSource } from './verify-scan.js';
import type { Snapshot, StoredTree } from './verify-log-records.js';
import type { EventIndex } from './event-index.js';
import { fileEventAt } from './verify-log-derived.js';

/**
 * When an index's sum differs from what the events call for, scans again looking every entry up,
 * so the findings name the events whose entries are wrong (rare, and only then slower).
 */
export async function lookedUpIfDiffering(
  path: string,
  source: ScanSource,
  chunks: readonly ChunkRequest[],
  joined: JoinedScan,
  indexes: Record<IndexName, IndexSummary>,
  scan: {
    threads: number | undefined;
    events: number;
    auditUpTo: number;
    judged: readonly string[];
    derived: ScanDerived;
  },
): Promise<JoinedScan> {
  const differs = (name: IndexName) => indexes[name].digest.some((part, i) => part !== joined.digests[name][i]);
  if (!INDEX_NAMES.some(differs)) return joined;
  const plan = chunks.map((request): ScanJob => ({
    kind: 'chunk',
    request,
    indexes: { mode: 'lookup', auditUpTo: scan.auditUpTo },
    judged: scan.judged,
  }));
  const { results } = await scanAll(path, source, plan, {
    threads: scan.threads,
    events: scan.events,
    derived: { set: scan.derived.set, targets: [] },
  });
  const precise = joinChunks(results as ChunkSummary[]);
  const judged = new Set(scan.judged);
  for (const name of INDEX_NAMES) {
    const named =
      name === 'audit'
        ? (problem: IndexProblem) => judged.has(problem.index)
        : (problem: IndexProblem) => problem.index === name;
    if (!differs(name) || precise.indexProblems.some(named)) continue;
    // Every event's entry is there: the index holds something more. A registered index's entries are
    // each checked against the event they name, to name the one that does not belong.
    if (name === 'audit') {
      const extra = extraEntries(source, scan.derived.set.indexes, judged, scan.auditUpTo);
      precise.indexProblems.push(...extra);
      if (extra.length > 0) continue;
    }
    const what =
      name === 'audit'
        ? `the registered indexes (${scan.judged.join(', ')}: ${indexes.audit.count} entries)`
        : `the ${name} index (${indexes[name].count} entries)`;
    precise.indexProblems.push({
      index: name,
      reason: `${what} holds an entry the events do not call for, or one was changed`,
    });
  }
  return precise;
}

/** Entries of the judged registered indexes that name an event without that key (at most 20). */
function extraEntries(
  source: ScanSource,
  indexes: readonly EventIndex[],
  judged: ReadonlySet<string>,
  upTo: number,
): IndexProblem[] {
  const problems: IndexProblem[] = [];
  for (const [name, key, seq] of source.auditEntries?.() ?? []) {
    const index = indexes.find((candidate) => candidate.name === name);
    if (!index || !judged.has(name) || seq > upTo) continue;
    const event = fileEventAt(source, seq);
    if (event && index.keys(event).includes(key)) continue;
    const holds = event ? `event ${seq} (${event.type}) does not carry that key` : `the log holds no event ${seq}`;
    problems.push({
      index: name,
      seq,
      reason: `the ${name} index lists seq ${seq} under ${JSON.stringify(key)}, but ${holds}`,
    });
    if (problems.length >= 20) break;
  }
  return problems;
}

/** The indexes against what the events say they should hold. */
export function indexFindings(
  snapshot: Snapshot,
  joined: JoinedScan,
  verified: number,
  stored: StoredTree,
  counts: { ids: number; calls: number; judged: readonly string[] },
): Finding[] {
  const { last } = snapshot;
  const findings: Finding[] = joined.indexProblems.map((problem) => ({
    kind: 'index',
    where: problem.index,
    ...(problem.seq === undefined ? {} : { seq: problem.seq }),
    reason: problem.reason,
  }));
  if (verified !== last) return findings;
  const covered = snapshot.indexes?.seq ?? 0;
  if (counts.judged.length > 0 && covered > last) {
    findings.push({
      kind: 'index',
      where: 'audit',
      reason: `the audit view's indexes say they cover ${covered} events, but the log ends at seq ${last}: events were removed`,
    });
  }
  if (counts.ids !== joined.named)
    findings.push({
      kind: 'index',
      where: 'ids',
      reason: `the ids index holds ${counts.ids} entries for ${joined.named} events whose writer chose their id`,
    });
  if (counts.calls !== joined.withCallId)
    findings.push({
      kind: 'index',
      where: 'calls',
      reason: `the calls index holds ${counts.calls} entries for ${joined.withCallId} call events`,
    });
  for (const [type, seq] of snapshot.latest) {
    if (joined.latest[type] !== seq)
      findings.push({
        kind: 'index',
        where: 'latest',
        reason: `the latest index says the newest ${type} is seq ${seq}, the events say ${joined.latest[type] ?? 'none'}`,
      });
  }
  findings.push(...treeFindings(joined, last, stored));
  findings.push(...inflightFindings(snapshot.inflight, joined));
  return findings;
}

/** The `inflight` index against the calls and sessions the events leave open. */
function inflightFindings(stored: Set<string> | undefined, joined: JoinedScan): Finding[] {
  if (!stored) return [];
  const what = (key: string) => `${key.startsWith('c:') ? 'call' : 'session'} ${key.slice(2)}`;
  const findings: Finding[] = [];
  for (const key of joined.open) {
    if (!stored.has(key))
      findings.push({
        kind: 'index',
        where: 'inflight',
        reason: `${what(key)} is open in the events but missing from the inflight index (a crash would leave it running)`,
      });
  }
  for (const key of stored) {
    if (!joined.open.has(key))
      findings.push({
        kind: 'index',
        where: 'inflight',
        reason: `the inflight index lists ${what(key)}, which the events show closed or never opened`,
      });
  }
  return findings.slice(0, 20);
}

function treeFindings(joined: JoinedScan, last: number, stored: StoredTree): Finding[] {
  if (stored.size === undefined) return [];
  if (stored.size < last) {
    return [
      {
        kind: 'appended',
        where: 'tree',
        seq: stored.size + 1,
        reason: `events ${stored.size + 1}–${last} were appended without extending the Merkle tree (written outside factorly)`,
      },
    ];
  }
  if (stored.size > last) {
    return [
      {
        kind: 'truncated',
        where: 'tree',
        seq: last + 1,
        reason: `the Merkle tree covers ${stored.size} events but the log ends at seq ${last}: events were removed`,
      },
    ];
  }
  let root: Buffer | undefined;
  try {
    root = stored.tree?.root();
  } catch {
    root = undefined;
  }
  if (!root?.equals(joined.range.root())) {
    stored.tree = undefined;
    return [
      {
        kind: 'index',
        where: 'tree',
        reason: 'the stored Merkle tree does not match the events: it was changed, or the events were',
      },
    ];
  }
  return [];
}
