import type { RootDatabase } from 'lmdb';
import { checkLmdbFile } from './lmdb-file-check.js';
import { openLogFile } from './lmdb-scan-source.js';
import { LmdbTree } from './lmdb-tree.js';
import { LmdbInflight } from './lmdb-inflight.js';
import type { LogDatabases } from './lmdb-layout.js';
import type { NoteVerifier } from './signed-note.js';
import { checkHeadRecord } from './verify.js';
import {
  checkEmbeddedCheckpoints,
  checkGivenCheckpoints,
  type CheckpointResult,
  type Finding,
  type GivenCheckpoint,
  type LogFacts,
} from './verify-checkpoints.js';
import { INDEX_NAMES, joinChunks, locateBreak, type JoinedScan } from './verify-join.js';
import { planChunks, scanAll, type ChunkRequest, type IndexSummary, type ScanJob } from './verify-parallel.js';
import { newSeeds } from './index-digest.js';
import type { ChunkSummary, IndexName, IndexProblem, ScanSource } from './verify-scan.js';
import { AUDIT_INDEXES } from './event-index.js';
import type { LmdbDerived } from './lmdb-derived.js';
import type { TransparencyTree, TreeHead } from './transparency-tree.js';
import type { LogHead } from './log.js';

/** What `logs verify` reports: 0 verified, 1 tampered (findings), 2 could not read. */
export interface LogVerification {
  ok: boolean;
  status: 'verified' | 'tampered';
  /** Events found intact from seq 1 (all of them when ok). */
  verified: number;
  /** The highest seq stored. */
  events: number;
  /** The first finding (chain breaks come first), for scripts that read one. */
  firstBad?: Finding;
  findings: Finding[];
  tree: { size: number; rootHash: string; origin?: string };
  checkpoints: CheckpointResult[];
}

export interface VerifyOptions {
  checkpoints?: readonly GivenCheckpoint[];
  verifiers?: readonly NoteVerifier[];
  threads?: number;
  /** Events per chunk (a power of two; tests use small ones to cross many chunk boundaries). */
  chunk?: number;
}

/**
 * Verifies an LMDB log file, opened read-only: the chain (in parallel chunks, in constant memory),
 * the indexes against the events, the stored Merkle tree against the one the chain gives, the
 * log's own checkpoints, and each checkpoint kept elsewhere with a consistency proof.
 */
export async function verifyLogFile(path: string, options: VerifyOptions = {}): Promise<LogVerification> {
  // The file is checked before LMDB maps it (which trusts what it finds), then every page is walked
  // while a reader holds its snapshot: a writer in another process then reuses none of its pages.
  checkLmdbFile(path);
  const file = openLogFile(path);
  try {
    walkEveryPage(file.root, path);
    const snapshot = snapshotOf(file.root, file.dbs, file.derived);
    const { last } = snapshot;
    const auditUpTo = Math.min(snapshot.auditCovered ?? 0, last);
    const given = options.checkpoints ?? [];
    const sizes = given
      .map((checkpoint) => sizeOf(checkpoint.note))
      .filter((size): size is number => size !== undefined);
    const chunks = planChunks(last, [...sizes, last], options.chunk);
    const seeds = newSeeds();
    const plan: ScanJob[] = [
      ...INDEX_NAMES.map((name): ScanJob => ({
        kind: 'index',
        name,
        seeds,
        upTo: name === 'audit' ? auditUpTo : last,
      })),
      ...chunks.map((request): ScanJob => ({ kind: 'chunk', request, indexes: { mode: 'digest', seeds, auditUpTo } })),
    ];
    const results = await scanAll(path, file.source, plan, { threads: options.threads, events: last });
    const [ids, calls, audit] = results.slice(0, INDEX_NAMES.length) as IndexSummary[];
    const indexes = { ids: ids!, calls: calls!, audit: audit! };
    const joined = joinChunks(results.slice(INDEX_NAMES.length) as ChunkSummary[]);
    const findings: Finding[] = [];
    let verified = joined.verified;
    let brokenAt: number | undefined;
    if (joined.brokenNear !== undefined) {
      const located = locateBreak(file.source, joined.brokenNear, last);
      verified = located.verified;
      brokenAt = located.broken.seq;
      findings.push(located.broken);
    } else {
      const tail = checkHeadRecord({ seq: verified, hash: joined.lastHash }, snapshot.head);
      if (tail) findings.push(tail);
    }
    const stored = storedTree(file.root, file.dbs, verified, snapshot.tree);
    // Past a chain break the events themselves are in doubt: the indexes are not judged against them.
    const lookedUp =
      brokenAt === undefined
        ? await lookedUpIfDiffering(path, file.source, chunks, joined, indexes, {
            threads: options.threads,
            last,
            auditUpTo,
          })
        : joined;
    if (brokenAt === undefined) lookedUp.indexProblems.push(...ids!.problems, ...calls!.problems);
    findings.push(...indexFindings(snapshot, lookedUp, verified, stored, { ids: ids!.count, calls: calls!.count }));
    const facts: LogFacts = {
      verified,
      brokenAt,
      origin: stored.origin,
      roots: rootsBefore(joined, verified),
      tree: stored.tree,
      embedded: joined.checkpoints,
    };
    const verifiers = options.verifiers ?? [];
    findings.push(...checkEmbeddedCheckpoints(facts, verifiers));
    const { results: checkpoints, findings: checkpointFindings } = checkGivenCheckpoints(given, verifiers, facts);
    findings.push(...checkpointFindings);
    const root = facts.roots.get(verified) ?? joined.range.root();
    return {
      ok: findings.length === 0,
      status: findings.length === 0 ? 'verified' : 'tampered',
      verified,
      events: last,
      firstBad: findings[0],
      findings,
      tree: { size: verified, rootHash: root.toString('hex'), origin: stored.origin },
      checkpoints,
    };
  } finally {
    await file.root.close();
  }
}

/**
 * When an index's sum differs from what the events call for, scans again looking every entry up,
 * so the findings name the events whose entries are wrong (rare, and only then slower).
 */
async function lookedUpIfDiffering(
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

const AUDIT_NAMES = new Set(AUDIT_INDEXES.map((index) => index.name));

/**
 * What the log's own records say, all read at once, in one read transaction, before the scan: a
 * log that keeps growing while it is checked (a server writing) is judged as it stood then. (The
 * scan reads nothing past `last`, and entries and nodes once written never change.)
 */
interface Snapshot {
  last: number;
  head?: LogHead;
  tree?: TreeHead;
  latest: Map<string, number>;
  inflight?: Set<string>;
  /** The seq the audit view's indexes say they cover, when they were made by this code. */
  auditCovered?: number;
}

function snapshotOf(root: RootDatabase, dbs: LogDatabases, derived: LmdbDerived): Snapshot {
  // lmdb-js begins its read transaction lazily (a first read does), opening a database renews it,
  // and a range takes a snapshot of its own unless given one: so the databases are opened first,
  // then one transaction is begun, held, and passed to every read.
  const tree = new LmdbTree(root);
  const inflight = new LmdbInflight(root);
  dbs.meta.get('head');
  const transaction = root.useReadTransaction();
  try {
    let last = 0;
    for (const key of dbs.events.getKeys({ reverse: true, limit: 1, transaction })) last = key;
    return {
      last,
      head: dbs.meta.get('head', { transaction }),
      tree: tree.head(transaction),
      latest: new Map([...dbs.latest.getRange({ transaction })].map(({ key, value }) => [key, value])),
      inflight: inflight.keys(transaction),
      auditCovered: auditCoverage(derived.coverage(transaction)),
    };
  } finally {
    transaction.done();
  }
}

/**
 * Names a damaged page anywhere in the file (could not read) before anything reads through it. A
 * read of the main database (whose root the first check vouched for) begins the read transaction.
 */
function walkEveryPage(root: RootDatabase, path: string): void {
  // lmdb-js keeps one read transaction per file within a process and renews it only after this
  // process writes: reset it, or a log another process appended to is judged as it stood earlier.
  root.resetReadTxn();
  root.get('factorly:pin');
  const pin = root.useReadTransaction();
  try {
    checkLmdbFile(path, { deep: true });
  } finally {
    pin.done();
  }
}

/** Indexes made by other code are rebuilt by the next writer: only this code's are judged. */
function auditCoverage({ seq, ours }: { seq: number; ours: boolean }): number | undefined {
  return ours && seq > 0 ? seq : undefined;
}

/** The tree size a checkpoint claims, read before its signature is checked (to ask the scan for that root). */
function sizeOf(note: string): number | undefined {
  const size = Number(note.split('\n')[1]);
  return Number.isSafeInteger(size) && size >= 0 ? size : undefined;
}

function rootsBefore(joined: JoinedScan, verified: number): Map<number, Buffer> {
  const roots = new Map([...joined.roots].filter(([size]) => size <= verified));
  if (joined.range.size === verified) roots.set(verified, joined.range.root());
  return roots;
}

interface StoredTree {
  origin?: string;
  size?: number;
  /** Set only when its root at the log's size matches the chain's. */
  tree?: TransparencyTree;
  rootMatches?: boolean;
}

function storedTree(root: RootDatabase, dbs: LogDatabases, verified: number, head: TreeHead | undefined): StoredTree {
  if (!head) return {};
  const tree = new LmdbTree(root);
  const hashAt = (seq: number): string | undefined => {
    const bytes = dbs.events.getBinary(seq);
    return bytes && (JSON.parse(bytes.toString('utf8')) as { hash: string }).hash;
  };
  // Proofs come from the stored tree only when it covers exactly the intact chain.
  const view = head.size === verified ? tree.view(head.size, hashAt, head) : undefined;
  return { origin: head.origin, size: head.size, tree: view };
}

/** The indexes against what the events say they should hold. */
function indexFindings(
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
