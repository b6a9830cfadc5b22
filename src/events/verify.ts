import { FactorlyError } from '../base/errors.js';
import { ChainChecker, type BreakKind, type ChainBreak, type ChainEntry } from './chain-check.js';
import type { Recorded } from './envelope.js';
import type { LogHead } from './log.js';

export type { BreakKind } from './chain-check.js';

export interface ChainReport {
  ok: boolean;
  /** Events checked and found intact (all of them when ok). */
  verified: number;
  firstBad?: ChainBreak;
}

/**
 * Walks the chain of any log in seq order, in constant memory, and stops at the first event that
 * does not hold (see ChainChecker for how each break is named). With the log's separately recorded
 * head (`attested`), a log whose events stop short of it is reported as truncated.
 */
export async function verifyChain(events: AsyncIterable<Recorded>, attested?: LogHead): Promise<ChainReport> {
  const checker = new ChainChecker();
  const iterator = events[Symbol.asyncIterator]();
  const pull = async (): Promise<ChainEntry | undefined> => {
    try {
      const next = await iterator.next();
      return next.done ? undefined : { event: next.value };
    } catch (error) {
      if (!FactorlyError.isInstance(error) || error.code !== 'LOG_CORRUPT') throw error;
      return { key: Number(error.data?.seq ?? checker.last.seq + 1), error: error.message };
    }
  };
  try {
    let current = await pull();
    let next = current && (await pull());
    while (current) {
      const bad = checker.check(current, () => next);
      if (bad) return { ok: false, verified: checker.verified, firstBad: bad };
      current = next;
      next = current && (await pull());
    }
  } finally {
    await iterator.return?.();
  }
  const truncated = checkHeadRecord(checker.last, attested);
  return truncated
    ? { ok: false, verified: checker.verified, firstBad: truncated }
    : { ok: true, verified: checker.verified };
}

/** Compares the last event with the separately recorded head, when there is one. */
export function checkHeadRecord(
  last: { seq: number; hash: string | undefined },
  attested: LogHead | undefined,
): ChainBreak | undefined {
  if (!attested || attested.seq < last.seq) return undefined;
  if (attested.seq > last.seq) {
    return {
      seq: last.seq + 1,
      kind: 'truncated' as BreakKind,
      reason: `the log ends at seq ${last.seq} but its head record says ${attested.seq}`,
    };
  }
  if (attested.hash !== last.hash)
    return { seq: last.seq, kind: 'modified', reason: 'the last event does not match the head record' };
  return undefined;
}
