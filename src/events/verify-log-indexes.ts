// A log file's indexes and stored Merkle tree, judged against what its events say they should hold.
import type { Finding } from './verify-checkpoints.js';
import { INDEX_NAMES, joinChunks, type JoinedScan } from './verify-join.js';
import { scanAll, type ChunkRequest, type IndexSummary, type ScanJob } from './verify-parallel.js';
import type { ChunkSummary, IndexName, IndexProblem, ScanSource } from './verify-scan.js';
import { AUDIT_INDEXES } from './event-index.js';
import type { Snapshot, StoredTree } from './verify-log-records.js';

const AUDIT_NAMES = new Set(AUDIT_INDEXES.map((index) => index.name));

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
  scan: { threads: number | undefined; last: number; auditUpTo: number },
): Promise<JoinedScan> {
  const differs = (name: IndexName) => indexes[name].digest.some((part, i) => part !== joined.digests[name][i]);
  if (!INDEX_NAMES.some(differs)) return joined;
  const plan = chunks.map((request): ScanJob => ({
    kind: 'chunk',
    request,
    indexes: { mode: 'lookup', auditUpTo: scan.auditUpTo },
  }));
  const precise = joinChunks(
    (await scanAll(path, source, plan, { threads: scan.threads, events: scan.last })) as ChunkSummary[],
  );
  for (const name of INDEX_NAMES) {
    const named =
      name === 'audit'
        ? (problem: IndexProblem) => AUDIT_NAMES.has(problem.index)
        : (problem: IndexProblem) => problem.index === name;
    if (!differs(name) || precise.indexProblems.some(named)) continue;
    // Every event's entry is there: the index holds something more, or something changed in it.
    const what =
      name === 'audit'
        ? `the audit view's indexes (${[...AUDIT_NAMES].join(', ')}: ${indexes.audit.count} entries)`
        : `the ${name} index (${indexes[name].count} entries)`;
    precise.indexProblems.push({
      index: name,
      reason: `${what} holds an entry the events do not call for, or one was changed`,
    });
  }
  return precise;
}

/** The indexes against what the events say they should hold. */
export function indexFindings(
  snapshot: Snapshot,
  joined: JoinedScan,
  verified: number,
  stored: StoredTree,
  counts: { ids: number; calls: number },
): Finding[] {
  const { last } = snapshot;
  const findings: Finding[] = joined.indexProblems.map((problem) => ({
    kind: 'index',
    where: problem.index,
    ...(problem.seq === undefined ? {} : { seq: problem.seq }),
    reason: problem.reason,
  }));
  if (verified !== last) return findings;
  if ((snapshot.auditCovered ?? 0) > last) {
    findings.push({
      kind: 'index',
      where: 'audit',
      reason: `the audit view's indexes say they cover ${snapshot.auditCovered} events, but the log ends at seq ${last}: events were removed`,
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
