import { FactorlyError } from '../base/errors.js';
import { EVENT_VERSIONS } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { EventLog, LogHead } from './log.js';

/** Events per append while copying (a batch is also one stream message: kept well under its size limit). */
const BATCH_EVENTS = 200;
const BATCH_BYTES = 256 * 1024;

/**
 * Copies every event of `source` into the empty `target` as it is: the same seq, id, time and so
 * the same hash. Each run of events stamped with one time is appended with the target's clock set
 * to it (`setTime`); every event that comes out of the target is compared with the original, and
 * the first that differs stops the copy, named.
 */
export async function copyEvents(
  source: EventLog,
  target: EventLog,
  setTime: (at: Date) => void,
  progress?: (done: number, total: number) => void,
): Promise<LogHead> {
  const total = (await source.head()).seq;
  let batch: Recorded[] = [];
  let bytes = 0;
  let done = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    setTime(new Date(batch[0]!.at));
    const written = await target.append(
      batch.map((event) => ({ id: event.id, type: event.type, data: event.data }) as NewEvent),
    );
    written.forEach((copy, i) => sameEvent(batch[i]!, copy));
    done += batch.length;
    progress?.(done, total);
    batch = [];
    bytes = 0;
  };
  for await (const event of source.read()) {
    if (event.v !== EVENT_VERSIONS[event.type]) {
      throw new FactorlyError(
        'LOG_CORRUPT',
        `event ${event.seq} (${event.type}) is of version ${event.v}, and this factorly writes version ${EVENT_VERSIONS[event.type]}: it cannot be copied with its hash`,
      );
    }
    const size = JSON.stringify(event.data).length;
    if (batch.length > 0 && (batch[0]!.at !== event.at || batch.length >= BATCH_EVENTS || bytes + size > BATCH_BYTES))
      await flush();
    batch.push(event);
    bytes += size;
  }
  await flush();
  return target.head();
}

function sameEvent(original: Recorded, copy: Recorded): void {
  if (copy.seq === original.seq && copy.hash === original.hash) return;
  throw new FactorlyError(
    'LOG_CORRUPT',
    `event ${original.seq} came out of the copy as seq ${copy.seq} with hash ${copy.hash.slice(0, 12)}…, not ${original.hash.slice(0, 12)}…: the copy stops there`,
  );
}
