import { FactorlyError } from '../base/errors.js';
import type { ChainBreak } from './chain-check.js';
import type { Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';
import type { LogHead } from './log.js';

export type CheckedBatch = { events: Recorded[] } | { broken: ChainBreak };

/**
 * The events of one batch's bytes (at stream `position`), checked: a non-empty JSON array of events
 * with consecutive seqs, each chained to the one before it and hashing to its recorded hash, the
 * first chained to `after` (the head it must carry on) when that is known. The first that does not
 * hold is where the log stops.
 */
export function checkedBatch(position: number, payload: Uint8Array, after?: LogHead): CheckedBatch {
  let events: Recorded[];
  try {
    events = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
    if (!Array.isArray(events) || events.length === 0)
      throw new FactorlyError('LOG_CORRUPT', 'not a non-empty array of events');
  } catch (error) {
    const reason = `the stream's batch at position ${position} is not a batch of events (${(error as Error).message}): the log stops before it`;
    return { broken: { seq: (after?.seq ?? 0) + 1, kind: 'corrupt', reason } };
  }
  let previous = after ?? { seq: Number(events[0]?.seq) - 1, hash: events[0]?.prevHash };
  for (const event of events) {
    const bad =
      event?.seq !== previous.seq + 1
        ? `has seq ${event?.seq}, expected ${previous.seq + 1}`
        : event.prevHash !== previous.hash
          ? 'does not chain to the event before it'
          : !hashesTo(event)
            ? 'does not hash to its recorded hash'
            : undefined;
    if (bad) {
      const reason = `event ${event?.seq} in the stream's batch at position ${position} ${bad}: the log stops before it`;
      const kind = event?.seq > previous.seq + 1 ? 'deleted' : 'modified';
      return { broken: { seq: previous.seq + 1, kind, reason } };
    }
    previous = { seq: event.seq, hash: event.hash };
  }
  return { events };
}

function hashesTo(event: Recorded): boolean {
  const { hash, ...envelope } = event;
  return hashEnvelope(envelope) === hash;
}

/** The break where the batch at `position`, the next one after `seq`, is gone from the stream. */
export function deletedBatch(position: number, seq: number): ChainBreak {
  return {
    seq: seq + 1,
    kind: 'deleted',
    reason: `seq ${seq + 1} is missing: the stream's message at position ${position} (the batch after seq ${seq}) was deleted from the stream; the log stops before it`,
  };
}
