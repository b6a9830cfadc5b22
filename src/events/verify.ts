import { FactorlyError } from '../kernel/base/errors.js';
import { GENESIS_HASH, type Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';
import type { LogHead } from './log.js';

export type BreakKind = 'modified' | 'deleted' | 'inserted' | 'reordered' | 'corrupt' | 'truncated';

export interface ChainReport {
  ok: boolean;
  /** Events checked and found intact (all of them when ok). */
  verified: number;
  firstBad?: { seq: number; kind: BreakKind; reason: string };
}

type Break = NonNullable<ChainReport['firstBad']>;

/**
 * Walks the chain in seq order and stops at the first event that does not hold:
 * - a hash that does not match the event's content: modified;
 * - a seq gap: deleted (or reordered, when the missing seq turns up right after);
 * - a prevHash pointing elsewhere: inserted (it points to an earlier event) or reordered.
 * With the log's separately recorded head (`attested`), a log whose events stop short of it is
 * reported as truncated.
 */
export async function verifyChain(events: AsyncIterable<Recorded>, attested?: LogHead): Promise<ChainReport> {
  let previous: LogHead = { seq: 0, hash: GENESIS_HASH };
  let verified = 0;
  const seen = new Set<string>([GENESIS_HASH]);
  const iterator = events[Symbol.asyncIterator]();
  try {
    for (let next = await iterator.next(); !next.done; ) {
      const event = next.value;
      next = await iterator.next();
      const bad = checkEvent(event, previous, seen, next.done ? undefined : next.value);
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
  } finally {
    await iterator.return?.();
  }
  const truncated = checkTail(previous, attested);
  return truncated ? { ok: false, verified, firstBad: truncated } : { ok: true, verified };
}

function checkEvent(event: Recorded, previous: LogHead, seen: Set<string>, following: Recorded | undefined): Break | undefined {
  const expected = previous.seq + 1;
  if (event.seq !== expected) {
    const swapped = event.seq < expected || following?.seq === expected;
    const kind = swapped ? 'reordered' : 'deleted';
    return { seq: expected, kind, reason: `expected seq ${expected}, found ${event.seq}` };
  }
  const { hash, ...rest } = event;
  if (hashEnvelope(rest) !== hash) return { seq: event.seq, kind: 'modified', reason: 'content does not match its hash' };
  if (event.prevHash !== previous.hash) {
    // Pointing back past its predecessor means something was slipped in between.
    const kind = seen.has(event.prevHash) ? 'inserted' : 'reordered';
    return { seq: event.seq, kind, reason: `prevHash ${event.prevHash.slice(0, 12)}… does not match event ${previous.seq}` };
  }
  return undefined;
}

/** Compares the last event with the separately recorded head, when there is one. */
function checkTail(last: LogHead, attested: LogHead | undefined): Break | undefined {
  if (!attested || attested.seq < last.seq) return undefined;
  if (attested.seq > last.seq) {
    return { seq: last.seq + 1, kind: 'truncated', reason: `the log ends at seq ${last.seq} but its head record says ${attested.seq}` };
  }
  if (attested.hash !== last.hash) return { seq: last.seq, kind: 'modified', reason: 'the last event does not match the head record' };
  return undefined;
}
