import { utf8BoundaryAfter, utf8BoundaryBefore } from '@factorly/text-kit';

/**
 * Cuts text to at most `maxBytes` of UTF-8, keeping the head (60%) and the tail (40%) around a
 * visible marker that states how many bytes were removed. Cuts never split a character.
 */
export function truncateMiddle(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let removed = bytes.length - maxBytes;
  // Converges in a step or two: a longer count means a longer marker, never a shorter one.
  for (let attempt = 0; ; attempt += 1) {
    const marker = markerFor(removed);
    const room = maxBytes - Buffer.byteLength(marker, 'utf8');
    if (room <= 0) return bytes.subarray(0, utf8BoundaryBefore(bytes, maxBytes)).toString('utf8');
    const headEnd = utf8BoundaryBefore(bytes, Math.floor(room * 0.6));
    const tailStart = utf8BoundaryAfter(bytes, bytes.length - (room - headEnd));
    const actuallyRemoved = tailStart - headEnd;
    // The marker's digits change its own length; settle on a count that states the truth.
    if (actuallyRemoved === removed || attempt === 4)
      return bytes.subarray(0, headEnd).toString('utf8') + marker + bytes.subarray(tailStart).toString('utf8');
    removed = actuallyRemoved;
  }
}

export function markerFor(removed: number): string {
  return `\n\n[... truncated ${removed} bytes ...]\n\n`;
}
