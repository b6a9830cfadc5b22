import { ChainChecker, type ChainBreak, type ChainEntry } from './chain-check.js';
import type { AnnouncedKey } from './writer-keys.js';
import type { LogCheckpointed } from './catalog.js';
import { GENESIS_HASH, type Recorded } from './envelope.js';
import { CompactRange } from './merkle.js';
import { parseEntry, type ChunkSummary, type IndexName, type IndexProblem, type ScanSource } from './verify-scan.js';

export const INDEX_NAMES: readonly IndexName[] = ['ids', 'calls', 'audit'];
import { addDigest, emptyDigest, type Digest } from './index-digest.js';

/** The chunks of a scan joined in order: what the whole log holds, up to its first break. */
export interface JoinedScan {
  verified: number;
  /** Where the chain stops holding (named precisely by `locateBreak`). */
  brokenNear?: number;
  /** The leaves up to the break (all of them when intact). */
  range: CompactRange;
  /** Roots at the sizes asked for, among those before the break. */
  roots: Map<number, Buffer>;
  lastHash: string;
  latest: Record<string, number>;
  withCallId: number;
  named: number;
  indexProblems: IndexProblem[];
  /** What the `inflight` index should hold at the end (see ChunkSummary.opened). */
  open: Set<string>;
  checkpoints: { seq: number; data: LogCheckpointed }[];
  writerKeys: AnnouncedKey[];
  /** What the events call for in each index, summed (see index-digest). */
  digests: Record<IndexName, Digest>;
}

export function joinChunks(chunks: readonly ChunkSummary[]): JoinedScan {
  const joined: JoinedScan = {
    verified: 0,
    range: new CompactRange(),
    roots: new Map(),
    lastHash: GENESIS_HASH,
    latest: {},
    withCallId: 0,
    named: 0,
    indexProblems: [],
    open: new Set(),
    checkpoints: [],
    writerKeys: [],
    digests: { ids: emptyDigest(), calls: emptyDigest(), audit: emptyDigest() },
  };
  for (const chunk of chunks) {
    const linked = chunk.count === 0 || chunk.firstPrevHash === joined.lastHash;
    if (!linked) {
      joined.brokenNear = chunk.from;
      break;
    }
    for (const { size, peaks } of chunk.snapshots) {
      const at = joined.range.clone();
      at.append(rangeOf(peaks, size - chunk.from + 1));
      joined.roots.set(size, at.root());
    }
    joined.range.append(rangeOf(chunk.peaks, chunk.count));
    joined.verified += chunk.count;
    if (chunk.lastHash) joined.lastHash = chunk.lastHash;
    Object.assign(joined.latest, chunk.latest);
    joined.withCallId += chunk.withCallId;
    joined.named += chunk.named;
    joined.indexProblems.push(...chunk.indexProblems);
    for (const key of chunk.closed) joined.open.delete(key);
    for (const key of chunk.opened) joined.open.add(key);
    joined.checkpoints.push(...chunk.checkpoints);
    joined.writerKeys.push(...chunk.writerKeys);
    if (chunk.digests) {
      for (const name of INDEX_NAMES) addDigest(joined.digests[name], chunk.digests[name]);
    }
    if (chunk.broken) {
      joined.brokenNear = chunk.broken.seq;
      break;
    }
  }
  return joined;
}

function rangeOf(peaks: readonly string[], size: number): CompactRange {
  return new CompactRange(
    size,
    peaks.map((peak) => Buffer.from(peak, 'hex')),
  );
}

/**
 * Names the first break near `seq` exactly: checks the chain again from a little before it, with
 * the two hashes before that (all of it found intact by the scan), as a sequential walk would.
 */
export function locateBreak(source: ScanSource, seq: number, last: number): { verified: number; broken: ChainBreak } {
  const start = Math.max(1, seq - 2);
  const hashOf = (at: number): string | undefined =>
    at < 1 ? (at === 0 ? GENESIS_HASH : undefined) : eventAt(source, at)?.hash;
  const checker = ChainChecker.after(start - 1, hashOf(start - 1), hashOf(start - 2));
  const entries: ChainEntry[] = [];
  for (const { key, value } of source.entries(start, Math.min(last, seq + 2))) entries.push(parseEntry(key, value));
  for (const [i, entry] of entries.entries()) {
    const broken = checker.check(entry, () => entries[i + 1]);
    if (broken) return { verified: start - 1 + checker.verified, broken };
  }
  // Nothing wrong in the window itself: the scan stopped at a missing tail of its chunk.
  const at = start + checker.verified;
  return { verified: at - 1, broken: { seq: at, kind: 'deleted', reason: `expected seq ${at}, found none` } };
}

function eventAt(source: ScanSource, seq: number): Recorded | undefined {
  for (const { key, value } of source.entries(seq, seq)) return parseEntry(key, value).event;
  return undefined;
}
