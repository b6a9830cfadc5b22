import { createHash } from 'node:crypto';
import type { StoredText } from '../events/catalog.js';

/** How much of a call's output the log keeps; the size and digest always cover the whole. */
export const LOGGED_OUTPUT_CAP = 16 * 1024;

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

export function storedText(text: string, cap = LOGGED_OUTPUT_CAP): StoredText {
  const bytes = Buffer.byteLength(text, 'utf8');
  const kept = truncateUtf8(text, cap);
  return { text: kept, bytes, sha256: createHash('sha256').update(text).digest('hex'), truncated: kept.length < text.length };
}
