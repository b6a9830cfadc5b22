import type { Projection, Recorded, ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { bucketOf, formatDuration, policyOf } from './policy.js';
import { emptyWindows, itself, remember, within, type TimeWindows } from './windows.js';

export const RATE_LIMIT_RULE = 'rate-limit';

/** Per bucket, the times (epoch ms) of the calls it let through that may still count. */
export type Buckets = TimeWindows;

/**
 * Rate-limit buckets as a fold over the log: every call this rule let through is a `shadow.decided`
 * event carrying its bucket and window. Times older than the window are dropped as events arrive,
 * so the state stays as small as the limits allow.
 */
export const bucketsProjection: Projection<Buckets> = {
  module: import.meta.url,
  name: 'shadow.rate-limit.buckets',
  // Snapshots of it are kept beside the log: bump this whenever the fold (or windows.ts) changes.
  version: 1,
  init: () => emptyWindows(),
  evolve(buckets, event: Recorded) {
    if (event.type !== 'shadow.decided' || event.data.rule !== RATE_LIMIT_RULE || event.data.decision !== 'allow')
      return buckets;
    const { bucket, window } = event.data.facts ?? {};
    if (typeof bucket !== 'string' || typeof window !== 'number') return buckets;
    const at = Date.parse(event.at);
    remember(buckets, bucket, at, window, at, itself);
    return buckets;
  },
};

/**
 * `shadow.rate_limit: N/unit`: at most N calls in any window of one unit (a sliding window, so
 * "10/min" never lets 11 through in 60 seconds, even across a minute boundary).
 */
export class RateLimitRule implements ShadowRule<Buckets> {
  readonly name = RATE_LIMIT_RULE;
  readonly order = 30;
  readonly history = bucketsProjection;

  evaluate({ tool, agentId, now }: ShadowContext, buckets: Buckets): ShadowVerdict | undefined {
    const policy = policyOf(tool);
    const limit = policy.rateLimit;
    if (!limit) return undefined;
    const bucket = bucketOf(policy, tool.name, agentId);
    const recent = within(buckets, bucket, now, limit.windowMs, itself);
    if (recent.length < limit.count) {
      const left = limit.count - recent.length - 1;
      return {
        decision: 'allow',
        reason: `within ${limit.text} (${left} left)`,
        facts: { bucket, window: limit.windowMs },
      };
    }
    const resetsIn = recent[recent.length - limit.count] + limit.windowMs - now;
    return {
      decision: 'rate_limited',
      reason: `tool "${tool.name}" rate limited: ${limit.text} exceeded (resets in ${formatDuration(resetsIn)})`,
      facts: { bucket, resetsInMs: Math.max(0, Math.round(resetsIn)) },
    };
  }
}
