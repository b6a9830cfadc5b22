import { describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly';
import { fold } from 'factorly/events';
import { alternationLength, loopProjection } from '../src/loop-rule.js';
import { bucketsProjection } from '../src/rate-limit-rule.js';
import { formatDuration } from '../src/policy.js';

let seq = 0;
function decidedAt(ms: number, rule: string, decision: string, facts: Record<string, string | number>): Recorded {
  seq += 1;
  return {
    seq,
    id: `e${seq}`,
    type: 'shadow.decided',
    v: 2,
    at: new Date(ms).toISOString(),
    prevHash: '',
    hash: '',
    data: { callId: `c${seq}`, rule, plugin: 'shadow', decision: decision as 'allow', reason: '', facts },
  } as Recorded;
}

describe('windows folded from decisions', () => {
  it('keeps only what can still count and drops buckets whose window has passed', () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const events = [
      decidedAt(t0, 'rate-limit', 'allow', { bucket: 'short', window: 1_000 }),
      decidedAt(t0 + 500, 'rate-limit', 'allow', { bucket: 'long', window: 3_600_000 }),
      decidedAt(t0 + 800, 'rate-limit', 'rate_limited', { bucket: 'short' }),
      decidedAt(t0 + 120_000, 'rate-limit', 'allow', { bucket: 'long', window: 3_600_000 }),
    ];
    const buckets = fold(events, bucketsProjection);
    expect([...buckets.entries]).toEqual([['long', { window: 3_600_000, items: [t0 + 500, t0 + 120_000] }]]);
  });

  it('caps the per-agent history used for alternation and ignores other rules', () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const events = Array.from({ length: 100 }, (_, i) =>
      decidedAt(t0 + i, 'loop-detection', 'allow', { fingerprint: `f${i % 2}`, agent: 'a', window: 300_000 }),
    );
    events.push(decidedAt(t0 + 200, 'deny', 'deny', { fingerprint: 'x', agent: 'a', window: 300_000 }));
    const windows = fold(events, loopProjection);
    expect(windows.recent.entries.get('a')?.items).toHaveLength(64);
    expect(windows.repeats.entries.get('a|f0')?.items).toHaveLength(50);
    expect(windows.repeats.entries.has('a|x')).toBe(false);
  });

  it('measures A-B-A-B runs and formats reset times', () => {
    expect(alternationLength(['a', 'b', 'a', 'b'])).toBe(4);
    expect(alternationLength(['c', 'a', 'b', 'a'])).toBe(3);
    expect(alternationLength(['a', 'a'])).toBe(0);
    expect(alternationLength(['a'])).toBe(0);
    expect([formatDuration(41_200), formatDuration(60_000), formatDuration(3_723_000), formatDuration(10)]).toEqual([
      '42s',
      '1m',
      '1h2m3s',
      '1s',
    ]);
  });
});
