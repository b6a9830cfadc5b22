// Cutting UTF-8 bytes where a character starts, so a cut text never shows U+FFFD where it was cut.
// The official plugins that cap text (output truncation, a code tool's max_output, the built-in
// tools' read caps) share this; the kernel caps what the log keeps with its own
// (src/base/utf8.ts), as a plugin cannot import factorly's code at run time, nor the kernel a package.

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
