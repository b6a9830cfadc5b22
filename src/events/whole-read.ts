import { FactorlyError } from '../base/errors.js';
import type { Recorded } from './envelope.js';
import type { EventLog } from './log.js';

/**
 * Reads a range of a log as a whole, for a command whose answer is the events themselves (`logs
 * export`): every seq from the first asked for through the last asked for, or the log's head
 * record when none was, none missing and none unreadable. What LMDB reads short on a damaged page
 * (a cursor that cannot follow a branch just ends) then fails naming the log, after the events read
 * before it, instead of ending as if that were all there is. `log` names the log in the error (its
 * file, when it has one).
 */
export async function* wholeRange(
  events: EventLog,
  range: { from?: number; to?: number },
  log: string,
): AsyncIterable<Recorded> {
  const attested = await events.attestedHead?.();
  const last = Math.max(attested?.seq ?? 0, (await events.head()).seq);
  let next = Math.max(range.from ?? 1, 1);
  try {
    for await (const event of events.read({ from: next, to: range.to })) {
      if (event.seq !== next) throw unreadable(log, `seq ${next} cannot be read (the next one read is ${event.seq})`);
      next += 1;
      yield event;
    }
  } catch (error) {
    if (!FactorlyError.isInstance(error) || error.code !== 'LOG_CORRUPT') throw error;
    throw unreadable(log, error.message, error);
  }
  const end = Math.min(range.to ?? last, last);
  if (next <= end) throw unreadable(log, `the events stop after seq ${next - 1}, but its head record says ${last}`);
}

function unreadable(log: string, problem: string, cause?: unknown): FactorlyError {
  return new FactorlyError(
    'LOG_UNREADABLE',
    `${log} is damaged: ${problem}; the events before it were read, the rest cannot be (run factorly logs verify)`,
    { cause },
  );
}
