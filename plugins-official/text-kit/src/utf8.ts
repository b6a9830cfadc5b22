// Cutting UTF-8 bytes where a character starts, so a cut text never shows U+FFFD where it was cut.
// The one place factorly cuts UTF-8: the official plugins that cap text (output truncation, a code
// tool's max_output, the built-in tools' read caps) and factorly itself (what the log keeps, through
// src/base/utf8.ts) share it.

/** A continuation byte (10xxxxxx) is never the start of a character. */
function continues(bytes: Uint8Array, at: number): boolean {
  return (bytes[at] & 0xc0) === 0x80;
}

/** The largest index ≤ `at` (and ≤ the length) where a character starts: cutting there splits none. */
export function utf8BoundaryBefore(bytes: Uint8Array, at: number): number {
  let end = Math.max(0, Math.min(at, bytes.length));
  while (end > 0 && end < bytes.length && continues(bytes, end)) end -= 1;
  return end;
}

/** The smallest index ≥ `at` (and ≤ the length) where a character starts. */
export function utf8BoundaryAfter(bytes: Uint8Array, at: number): number {
  let start = Math.max(0, Math.min(at, bytes.length));
  while (start < bytes.length && continues(bytes, start)) start += 1;
  return start;
}

/** `text` cut to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return bytes.subarray(0, utf8BoundaryBefore(bytes, maxBytes)).toString('utf8');
}
