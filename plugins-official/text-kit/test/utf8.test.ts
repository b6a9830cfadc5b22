import { describe, expect, it } from 'vitest';
import { truncateUtf8, utf8BoundaryAfter, utf8BoundaryBefore } from '@factorly/text-kit';

// "aé€😀": 1 + 2 + 3 + 4 bytes; characters start at bytes 0, 1, 3 and 6 (10 bytes in all).
const MIXED = 'aé€😀';
const bytes = Buffer.from(MIXED, 'utf8');

describe('cutting UTF-8 where a character starts', () => {
  it('moves a cut inside a character back to where it starts, or forward past it', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((at) => utf8BoundaryBefore(bytes, at))).toEqual([
      0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10,
    ]);
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((at) => utf8BoundaryAfter(bytes, at))).toEqual([
      0, 1, 3, 3, 6, 6, 6, 10, 10, 10, 10,
    ]);
  });

  it('keeps indexes inside the bytes: below 0 is 0, past the end is the length', () => {
    expect(utf8BoundaryBefore(bytes, -3)).toBe(0);
    expect(utf8BoundaryBefore(bytes, 99)).toBe(10);
    expect(utf8BoundaryAfter(bytes, 99)).toBe(10);
  });

  it('truncates text to at most the bytes given without a replacement character', () => {
    expect([0, 1, 2, 3, 5, 6, 9, 10, 11].map((max) => truncateUtf8(MIXED, max))).toEqual([
      '',
      'a',
      'a',
      'aé',
      'aé',
      'aé€',
      'aé€',
      MIXED,
      MIXED,
    ]);
    for (let max = 0; max <= 10; max += 1) {
      const cut = truncateUtf8(MIXED, max);
      expect(cut).not.toContain('\uFFFD');
      expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(max);
    }
  });
});
