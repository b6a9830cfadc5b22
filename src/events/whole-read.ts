import { FactorlyError } from '../base/errors.js';
import type { Recorded } from './envelope.js';
import type { EventLog, ReadRange } from './log.js';

/**
 * Reads a range of a log as a whole, for a command whose answer is the events themselves (`logs
 * export`, the audit view): every seq from the first asked for to the last (or the log's head
 * record, when none was asked for), in either direction, none missing and none unreadable. What
 * LMDB reads short on a damaged page (a cursor that cannot follow a branch just ends, a page of
 * garbage holds no keys) then fails naming the log, after the events read before it, instead of
 * ending as if that were all there is. A reader that stops early (enough calls) checks no further.
 */
export async function* wholeRange(log: EventLog, range: Omit<ReadRange, 'limit'> = {}): AsyncIterable<Recorded> {
  const attested = await log.attestedHead?.();
  const last = Math.max(attested?.seq ?? 0, (await log.head()).seq);
  const first = Math.max(range.from ?? 1, 1);
  const end = Math.min(range.to ?? last, last);
  const step = range.reverse ? -1 : 1;
  let next = range.reverse ? end : first;
  try {
    // Backwards from the head read now: what another process appends meanwhile is not a gap.
    for await (const event of log.read(range.reverse ? { ...range, to: end } : range)) {
      if (event.seq !== next) throw unreadable(log, `seq ${next} cannot be read (the next one read is ${event.seq})`);
      next += step;
      yield event;
    }
  } catch (error) {
    if (!FactorlyError.isInstance(error) || error.code !== 'LOG_CORRUPT') throw error;
    throw unreadable(log, error.message, error);
  }
  if (range.reverse ? next >= first : next <= end)
    throw unreadable(log, `seq ${next} cannot be read, but its head record says it holds ${last} events`);
}

function unreadable(log: EventLog, problem: string, cause?: unknown): FactorlyError {
  return new FactorlyError(
    'LOG_UNREADABLE',
    `the event log ${log.location ? `${log.location} ` : ''}is damaged: ${problem}; ` +
      'the events before it were read, the rest cannot be (run factorly logs verify)',
    { cause },
  );
}
