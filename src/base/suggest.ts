import { distance } from 'fastest-levenshtein';

/**
 * Names close to `word`, best first: substring matches, then small edit distances
 * (about a third of the word's length, never more than 3 edits).
 */
export function closeMatches(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const lower = word.toLowerCase();
  const maxEdits = Math.min(3, Math.max(1, Math.ceil(lower.length / 3)));
  const scored: { name: string; score: number }[] = [];
  for (const name of candidates) {
    const other = name.toLowerCase();
    const edits = distance(lower, other);
    const contains = lower.length >= 3 && (other.includes(lower) || lower.includes(other));
    if (edits <= maxEdits || contains) scored.push({ name, score: contains ? Math.min(edits, 1) : edits });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((s) => s.name);
}

/** `; did you mean "a" or "b"?` or an empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const matches = closeMatches(word, candidates);
  if (matches.length === 0) return '';
  return `; did you mean ${matches.map((m) => `"${m}"`).join(' or ')}?`;
}
