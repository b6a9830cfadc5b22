import type { Recorded } from './envelope.js';
import type { Unsubscribe } from './log.js';

/**
 * A subscription from `fromSeq` on a log that reads its past on demand: the events that arrive live
 * (through `live`, the log's listeners) are held while the past is read (`readFrom`), then passed on
 * after it, each seq once and in order.
 */
export function pastThenLive(
  live: Set<(event: Recorded) => void>,
  readFrom: (seq: number) => AsyncIterable<Recorded>,
  fromSeq: number,
  listener: (event: Recorded) => void,
): Unsubscribe {
  let next = Math.max(fromSeq, 1);
  let open = true;
  let held: Recorded[] | undefined = [];
  const deliver = (event: Recorded): void => {
    if (!open || event.seq < next) return;
    next = event.seq + 1;
    listener(event);
  };
  const hear = (event: Recorded): void => (held ? void held.push(event) : deliver(event));
  live.add(hear);
  void (async () => {
    for await (const event of readFrom(next)) deliver(event);
  })()
    .catch(() => undefined)
    .finally(() => {
      for (const event of held ?? []) deliver(event);
      held = undefined;
    });
  return () => {
    open = false;
    live.delete(hear);
  };
}
