import { FactorlyError } from '../kernel/base/errors.js';
import { GENESIS_HASH, type Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';
import type { LogHead } from './log.js';

export type BreakKind = 'modified' | 'deleted' | 'inserted' | 'reordered' | 'corrupt';

export interface ChainReport {
  ok: boolean;
  /** Events checked and found intact (all of them when ok). */
  verified: number;
  firstBad?: { seq: number; kind: BreakKind; reason: string };
}

/**
 * Walks the chain in seq order and stops at the first event that does not hold: a hash that does
 * not match its content (modified), a seq gap (deleted), or a prevHash that points elsewhere
 * (inserted when it points to an earlier event, reordered otherwise).
 */
export async function verifyChain(events: AsyncIterable<Recorded>): Promise<ChainReport> {
  let previous: LogHead = { seq: 0, hash: GENESIS_HASH };
  let verified = 0;
  const seen = new Set<string>([GENESIS_HASH]);
  try {
    for await (const event of events) {
      const bad = checkEvent(event, previous, seen);
      if (bad) return { ok: false, verified, firstBad: bad };
      previous = { seq: event.seq, hash: event.hash };
      seen.add(event.hash);
      verified += 1;
    }
  } catch (error) {
    if (FactorlyError.isInstance(error) && error.code === 'LOG_CORRUPT') {
      const seq = Number(error.data?.seq ?? previous.seq + 1);
      return { ok: false, verified, firstBad: { seq, kind: 'corrupt', reason: error.message } };
    }
    throw error;
  }
  return { ok: true, verified };
}

function checkEvent(event: Recorded, previous: LogHead, seen: Set<string>): ChainReport['firstBad'] {
  if (event.seq !== previous.seq + 1) {
    const kind = event.seq > previous.seq + 1 ? 'deleted' : 'reordered';
    return { seq: previous.seq + 1, kind, reason: `expected seq ${previous.seq + 1}, found ${event.seq}` };
  }
  const { hash, ...rest } = event;
  if (hashEnvelope(rest) !== hash) {
    return { seq: event.seq, kind: 'modified', reason: 'content does not match its hash' };
  }
  if (event.prevHash !== previous.hash) {
    // Pointing back past its predecessor means something was slipped in between.
    const kind = seen.has(event.prevHash) ? 'inserted' : 'reordered';
    return { seq: event.seq, kind, reason: `prevHash ${event.prevHash.slice(0, 12)}… does not match event ${previous.seq}` };
  }
  return undefined;
}
