import type { Recorded } from './envelope.js';
import type { EventLog } from './log.js';

/**
 * Events past the seq found by time that are still read: writers append in time order each, but
 * several writers' clocks and batches interleave, so an event a little later in seq may be a little
 * earlier in time. Matching calls are still checked against the time itself.
 */
export const SEEK_SLACK = 1_000;

/**
 * A seq past every event recorded at or before `time` (give or take `SEEK_SLACK` events of clock
 * skew between writers), found by a binary search over seqs: about 20 single reads on a million
 * events. Undefined when the log's newest events are no later than `time` (read from the head).
 */
export async function seqAfter(log: EventLog, time: Date): Promise<number | undefined> {
  const head = (await log.head()).seq;
  let low = 1;
  let high = head + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const event = await eventAt(log, middle);
    if (!event || new Date(event.at) <= time) low = middle + 1;
    else high = middle;
  }
  const upTo = low - 1 + SEEK_SLACK;
  return upTo >= head ? undefined : upTo;
}

/** The event at `seq`, if the log holds one. */
export async function eventAt(log: EventLog, seq: number): Promise<Recorded | undefined> {
  for await (const event of log.read({ from: seq, to: seq })) return event;
  return undefined;
}
