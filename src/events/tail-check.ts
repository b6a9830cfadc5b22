import { FactorlyError } from '../base/errors.js';
import { GENESIS_HASH, type Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';
import type { EventLog, LogHead } from './log.js';

/** How `logs stats` reads the chain without walking all of it. */
export interface TailReport {
  ok: boolean;
  /** Events whose hash and link were checked (the newest ones). */
  checked: number;
  head: LogHead;
  scope: 'tail';
  firstBad?: { seq: number; reason: string };
}

/**
 * Checks the newest `count` events of the chain: each hash matches its content, each links to the
 * one before it, seqs have no gap, and the last one is the head the log recorded at its last append
 * (a cut or rewritten tail). It costs the same on any log; `logs verify` walks the whole chain.
 */
export async function checkTail(log: EventLog, count: number): Promise<TailReport> {
  const head = await log.head();
  const attested = await log.attestedHead?.();
  const bad = (seq: number, reason: string): TailReport => ({
    ok: false,
    checked: 0,
    head,
    scope: 'tail',
    firstBad: { seq, reason },
  });
  const newestFirst: Recorded[] = [];
  try {
    for await (const event of log.read({ reverse: true, limit: count })) newestFirst.push(event);
  } catch (error) {
    // An entry that is not an event is what the chain status reports, as `--verify` does.
    if (!FactorlyError.isInstance(error) || error.code !== 'LOG_CORRUPT') throw error;
    return bad(Number(error.data?.seq ?? head.seq), error.message);
  }
  const events = newestFirst.reverse();
  if (attested && (attested.seq !== head.seq || attested.hash !== head.hash))
    return bad(head.seq, `the log ends at seq ${head.seq} but its head record says ${attested.seq}`);
  for (const [i, event] of events.entries()) {
    const { hash, ...rest } = event;
    if (hashEnvelope(rest) !== hash) return bad(event.seq, 'content does not match its hash');
    const before = events[i - 1];
    if (before && (event.seq !== before.seq + 1 || event.prevHash !== before.hash))
      return bad(event.seq, `does not follow event ${before.seq}`);
    if (!before && event.seq === 1 && event.prevHash !== GENESIS_HASH)
      return bad(1, 'the first event does not start from the genesis hash');
  }
  return { ok: true, checked: events.length, head, scope: 'tail' };
}
