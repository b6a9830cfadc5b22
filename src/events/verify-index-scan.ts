import { isGeneratedId } from './append-batch.js';
import { addEntry, emptyDigest, type Digest, type Seeds } from './index-digest.js';
import { parseEntry, type IndexName, type IndexProblem, type ScanSource } from './verify-scan.js';

const MAX_INDEX_PROBLEMS = 20;

/**
 * The same sum over an index as it is stored, and how many entries it holds, for events up to
 * `upTo` (a log still being written has entries for later ones by the time this runs).
 */
export function scanIndex(
  source: ScanSource,
  name: IndexName,
  seeds: Seeds,
  upTo: number,
  judged: readonly string[] = [],
): { name: string; count: number; digest: Digest; problems: IndexProblem[] } {
  const digest = emptyDigest();
  const problems: IndexProblem[] = [];
  let count = 0;
  const entries = name === 'audit' ? auditEntries(source, new Set(judged)) : (source.indexEntries?.(name) ?? []);
  for (const { key, value } of entries) {
    if (value > upTo) continue;
    // An id of the generated form is in the index only when its writer chose it: the events side
    // cannot count it, so its entry is checked against the event it names.
    if (name === 'ids' && isGeneratedId(key)) {
      const listed = eventIdAt(source, value);
      if (listed !== key && problems.length < MAX_INDEX_PROBLEMS)
        problems.push({
          index: 'ids',
          seq: value,
          reason: `the ids index lists id ${key} at seq ${value}, which holds ${listed === undefined ? 'no event' : `event ${listed}`}`,
        });
      continue;
    }
    addEntry(digest, seeds, key, value);
    count += 1;
  }
  return { name, count, digest, problems };
}

/** The entries of the registered indexes verification can judge (made by the code it has). */
function* auditEntries(source: ScanSource, judged: ReadonlySet<string>): Iterable<{ key: string; value: number }> {
  for (const [index, key, seq] of source.auditEntries?.() ?? [])
    if (judged.has(index)) yield { key: `${index}\0${key}`, value: seq };
}

function eventIdAt(source: ScanSource, seq: number): string | undefined {
  for (const { key, value } of source.entries(seq, seq)) return parseEntry(key, value).event?.id;
  return undefined;
}
