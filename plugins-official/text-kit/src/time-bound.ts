import ms from 'ms';

/** Where a range of the log starts or ends: a seq, or a moment. */
export type TimeBound = { seq: number } | { time: Date };

/** What `readTimeBound` reads, for a message naming a value it could not. */
export const TIME_BOUND_FORMS = 'a seq number, a duration ago (15m, 2h, 1d) or a time (2026-11-30T10:00:00Z)';

/**
 * Reads a `since`/`until` value as `factorly logs` and the web UI's history take it: a seq
 * (`1200`), a duration ago (`15m`, `2h`, `1d`) or a time (`2026-11-30T10:00:00Z`, `2026-11-30`).
 * Undefined for anything else, so the caller names the value in its own words.
 */
export function readTimeBound(value: string, now = new Date()): TimeBound | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return { seq: Number(text) };
  const ago = /^\d+(\.\d+)?\s*[a-z]+$/i.test(text) ? ms(text as ms.StringValue) : undefined;
  if (typeof ago === 'number' && Number.isFinite(ago)) return { time: new Date(now.getTime() - ago) };
  // A date first (as the message says): `Date.parse` alone reads "-5" as a year.
  const time = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(time) ? undefined : { time: new Date(time) };
}
