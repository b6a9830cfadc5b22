import type { EventIndex, IndexLookup } from './event-index.js';
import type { LmdbDerived } from './lmdb-derived.js';
import { decode, type LmdbEvents } from './lmdb-events.js';

/**
 * An index lookup whose every hit is checked against the event it names before it is used: an entry
 * that points to an event without its key (an index edited in the file) is never handed out. From
 * the first such hit on, the answer comes from the events themselves (read backwards from there, as
 * the index would have answered), `distrust` is told (once), and no index is used again in this
 * process until the log has indexed its events anew. An index not registered here is not used.
 */
export function checkedLookup(
  store: LmdbEvents,
  derived: LmdbDerived,
  query: { name: string; key: string; before?: number },
  distrust: (name: string, reason: string) => void,
): IndexLookup {
  // An index this process does not keep (a reader that registered none) cannot be checked: it answers
  // nothing and covers nothing, so the caller reads the events themselves.
  const index = derived.indexNamed(query.name);
  if (derived.distrusted || !index) return { seqs: [], covered: 0 };
  const found = derived.lookup(query.name, query.key, query.before);
  return { covered: found.covered, seqs: checkedHits(store, index, query, found, distrust) };
}

function* checkedHits(
  store: LmdbEvents,
  index: EventIndex,
  { name, key, before }: { name: string; key: string; before?: number },
  found: IndexLookup,
  distrust: (name: string, reason: string) => void,
): Iterable<number> {
  let below = Math.min(before ?? found.covered, found.covered) + 1;
  for (const seq of found.seqs) {
    const event = store.bySeq(seq);
    if (event && index.keys(event).includes(key)) {
      below = seq;
      yield seq;
      continue;
    }
    const holds = event ? `event ${seq} (${event.type}) does not carry that key` : `the log holds no event ${seq}`;
    distrust(name, `the ${name} index lists seq ${seq} under ${JSON.stringify(key)}, but ${holds}`);
    // The rest from the events: what the index should have answered below the last good hit.
    for (const { key: at, value } of store.dbs.events.getRange({ start: below - 1, end: 0, reverse: true })) {
      if (index.keys(decode(value, at)).includes(key)) yield at;
    }
    return;
  }
}
