import type { CompactRange } from './merkle.js';

/** Where a verification reached with the chain intact: what the next events are checked on top of. */
export interface VerifiedFrontier {
  /** Events verified from seq 1. */
  size: number;
  /** The hash of the last of them (genesis for none). */
  lastHash: string;
  /** The Merkle tree's compact range at `size` (its peaks, largest first, hex). */
  peaks: string[];
}

/** The frontier a chain of `size` events with these leaves reached. */
export function frontierOf(size: number, lastHash: string, range: CompactRange): VerifiedFrontier {
  return { size, lastHash, peaks: range.peaks.map((peak) => peak.toString('hex')) };
}
