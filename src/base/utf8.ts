// The kernel's and the event layer's one UTF-8 cut (the log's stored outputs, errors and params).
// Official plugins cut with the text kit they share (a plugin cannot import factorly's code at run time).

/** `text` cut to at most `maxBytes` of UTF-8 without splitting a character (a continuation byte is 10xxxxxx). */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
