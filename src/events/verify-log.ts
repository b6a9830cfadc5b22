import { checkLmdbFile } from './lmdb-file-check.js';
import { openLogFile } from './lmdb-scan-source.js';
import type { NoteVerifier } from './signed-note.js';
import { checkHeadRecord } from './verify.js';
import {
  checkEmbeddedCheckpoints,
  checkGivenCheckpoints,
  verdictOf,
  type CheckpointResult,
  type Finding,
  type GivenCheckpoint,
  type LogFacts,
} from './verify-checkpoints.js';
import { indexFindings, lookedUpIfDiffering } from './verify-log-indexes.js';
import { snapshotOf, storedTree, walkEveryPage, type Snapshot } from './verify-log-records.js';
import { INDEX_NAMES, joinChunks, locateBreak, type JoinedScan } from './verify-join.js';
import { planChunks, scanAll, type ChunkRequest, type IndexSummary, type ScanJob } from './verify-parallel.js';
import type { DerivedView } from './derived-views.js';
import { derivedSet, type DerivedSet } from './verify-derived.js';
import { StretchFold, type FoldTarget } from './verify-fold.js';
import { frontierOf, type VerifiedFrontier } from './verify-frontier.js';
import { derivedFindings, fileEventAt, foldTargets, judgedIndexes, type DerivedCheck } from './verify-log-derived.js';
import { newSeeds, type Seeds } from './index-digest.js';
import type { ChunkSummary, ScanSource } from './verify-scan.js';

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
  /** Each stored snapshot and registered index: re-derived from the events and equal, different, or not checked (why). */
  derived?: DerivedCheck[];
  /** Where the intact chain reached, so events appended later can be checked on top of it (see `extendVerification`). */
  frontier?: VerifiedFrontier;
}

export interface VerifyOptions {
  checkpoints?: readonly GivenCheckpoint[];
  verifiers?: readonly NoteVerifier[];
  /** The auditor named the keys (`--key`, `log.trusted_keys`): no other writer's checkpoints are accepted. */
  restricted?: boolean;
  threads?: number;
  /** Events per chunk (a power of two; tests use small ones to cross many chunk boundaries). */
  chunk?: number;
  /**
   * The projections and indexes to re-derive (default: factorly's own and those registered in this
   * process): each stored snapshot is folded again and compared, each index summed against its events.
   */
  views?: readonly DerivedView[];
  /** The same, already loaded (a verification thread loads them from the modules the caller named). */
  derived?: DerivedSet;
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
    const set = options.derived ?? derivedSet(options.views);
    const judged = judgedIndexes(set, snapshot);
    const auditUpTo = judged.length > 0 ? Math.min(snapshot.indexes?.seq ?? 0, last) : 0;
    const targets = foldTargets(set, snapshot);
    const given = options.checkpoints ?? [];
    const sizes = given.flatMap((checkpoint) => sizeOf(checkpoint.note) ?? []);
    const chunks = planChunks(last, [...sizes, last], options.chunk);
    const plan = scanPlan(chunks, { seeds: newSeeds(), last, auditUpTo, judged, targets });
    const scan = { threads: options.threads, events: last, derived: { set, targets } };
    const { results, compared } = await scanAll(path, file.source, plan, scan);
    const [ids, calls, audit] = results.slice(0, INDEX_NAMES.length) as IndexSummary[];
    const indexes = { ids: ids!, calls: calls!, audit: audit! };
    const joined = joinChunks(results.slice(INDEX_NAMES.length) as ChunkSummary[]);
    const { verified, brokenAt, findings } = chainOutcome(file.source, joined, snapshot, path);
    const stored = storedTree(file.root, file.dbs, verified, snapshot.tree);
    // Past a chain break the events themselves are in doubt: the indexes are not judged against them.
    const lookedUp =
      brokenAt === undefined
        ? await lookedUpIfDiffering(path, file.source, chunks, joined, indexes, { ...scan, auditUpTo, judged })
        : joined;
    if (brokenAt === undefined) lookedUp.indexProblems.push(...ids!.problems, ...calls!.problems);
    findings.push(
      ...indexFindings(snapshot, lookedUp, verified, stored, { ids: ids!.count, calls: calls!.count, judged }),
    );
    const derived = derivedFindings((seq) => fileEventAt(file.source, seq), snapshot, {
      set,
      judged,
      compared,
      verified,
    });
    findings.push(...derived.findings);
    const facts: LogFacts = {
      verified,
      brokenAt,
      origin: stored.origin,
      roots: rootsBefore(joined, verified),
      tree: stored.tree,
      embedded: joined.checkpoints,
      writerKeys: joined.writerKeys,
    };
    const { verifiers = [], restricted } = options;
    findings.push(...checkEmbeddedCheckpoints(facts, verifiers, restricted));
    const { results: checkpoints, findings: checkpointFindings } = checkGivenCheckpoints(given, verifiers, facts);
    findings.push(...checkpointFindings);
    const root = facts.roots.get(verified) ?? joined.range.root();
    return {
      ...verdictOf(findings),
      verified,
      events: last,
      tree: { size: verified, rootHash: root.toString('hex'), origin: stored.origin },
      checkpoints,
      derived: derived.checks,
      ...(brokenAt === undefined && joined.range.size === verified
        ? { frontier: frontierOf(verified, joined.lastHash, joined.range) }
        : {}),
    };
  } finally {
    await file.root.close();
  }
}

/** The indexes, each summed as stored, then the chunks of events, those before the last snapshot folding too. */
function scanPlan(
  chunks: readonly ChunkRequest[],
  at: { seeds: Seeds; last: number; auditUpTo: number; judged: string[]; targets: readonly FoldTarget[] },
): ScanJob[] {
  const { seeds, last, auditUpTo, judged, targets } = at;
  return [
    ...INDEX_NAMES.map((name): ScanJob => ({
      kind: 'index',
      name,
      seeds,
      upTo: name === 'audit' ? auditUpTo : last,
      judged,
    })),
    ...chunks.map((request): ScanJob => ({
      kind: 'chunk',
      request,
      indexes: { mode: 'digest', seeds, auditUpTo },
      judged,
      fold: StretchFold.needed(request.from, targets),
    })),
  ];
}

/** Where the chain holds to: a break named exactly (a corrupt entry with its file), or the head record checked. */
function chainOutcome(
  source: ScanSource,
  joined: JoinedScan,
  snapshot: Snapshot,
  path: string,
): { verified: number; brokenAt?: number; findings: Finding[] } {
  if (joined.brokenNear === undefined) {
    const tail = checkHeadRecord({ seq: joined.verified, hash: joined.lastHash }, snapshot.head);
    return { verified: joined.verified, findings: tail ? [tail] : [] };
  }
  const located = locateBreak(source, joined.brokenNear, snapshot.last);
  // An entry that does not parse is named with the file it is in, as every read names it.
  if (located.broken.kind === 'corrupt') located.broken.reason = `${located.broken.reason} in ${path}`;
  return { verified: located.verified, brokenAt: located.broken.seq, findings: [located.broken] };
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
