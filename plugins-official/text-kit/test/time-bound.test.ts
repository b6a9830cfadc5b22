import { describe, expect, it } from 'vitest';
import { readTimeBound } from '@factorly/text-kit';

const NOW = new Date('2026-11-30T12:00:00.000Z');

describe('readTimeBound', () => {
  it('reads a seq, a duration ago and a time', () => {
    expect(readTimeBound('1200', NOW)).toEqual({ seq: 1200 });
    expect(readTimeBound(' 10m ', NOW)).toEqual({ time: new Date('2026-11-30T11:50:00.000Z') });
    expect(readTimeBound('1.5h', NOW)).toEqual({ time: new Date('2026-11-30T10:30:00.000Z') });
    expect(readTimeBound('2026-11-29', NOW)).toEqual({ time: new Date('2026-11-29T00:00:00.000Z') });
    expect(readTimeBound('2026-11-30T10:00:00Z', NOW)).toEqual({ time: new Date('2026-11-30T10:00:00.000Z') });
  });

  it('reads nothing from a value that is none of them', () => {
    for (const bad of ['', 'yesterday', '10 parsecs', '-5', '12:00']) expect(readTimeBound(bad, NOW)).toBeUndefined();
  });
});
