import type { JsonValue, Projection, Recorded, ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import type { AgentRuleBook } from './agent-rules.js';
import { formatDuration } from './policy.js';
import { emptyWindows, itself, remember, within, type TimeWindows } from './windows.js';

export const AGENT_RATE_LIMIT_RULE = 'agent-rate-limit';

/** One bucket a call was counted in, and the window it counts over. */
interface Counted {
  bucket: string;
  window: number;
}

/** The agents' buckets as a fold over this rule's own `allow` decisions (each lists the buckets it counted in). */
export const agentBucketsProjection: Projection<TimeWindows> = {
  module: import.meta.url,
  name: 'shadow.agent-rate-limit.buckets',
  // Snapshots of it are kept beside the log: bump this whenever the fold (or windows.ts) changes.
  version: 1,
  init: () => emptyWindows(),
  evolve(buckets, event: Recorded) {
    if (event.type !== 'shadow.decided' || event.data.rule !== AGENT_RATE_LIMIT_RULE || event.data.decision !== 'allow')
      return buckets;
    const counted = event.data.facts?.counted;
    if (!Array.isArray(counted)) return buckets;
    const at = Date.parse(event.at);
    for (const item of counted) {
      const { bucket, window } = (item ?? {}) as Partial<Counted>;
      if (typeof bucket === 'string' && typeof window === 'number') remember(buckets, bucket, at, window, at, itself);
    }
    return buckets;
  },
};

/**
 * `shadow.agents.<agent>.rate_limit` (and a named token's `rules.rate_limit`): at most N calls of
 * the agent, all tools together, in any window of one unit; each binding entry counts in a bucket
 * of its own (per agent). A sliding window, kept in the log like the per-tool limit.
 */
export class AgentRateLimitRule implements ShadowRule<TimeWindows> {
  readonly name = AGENT_RATE_LIMIT_RULE;
  readonly order = 32;
  readonly history = agentBucketsProjection;

  constructor(private readonly book: AgentRuleBook) {}

  evaluate({ agentId, now }: ShadowContext, buckets: TimeWindows): ShadowVerdict | undefined {
    const limited = this.book.bindingOf(agentId).filter((entry) => entry.rules.rateLimit);
    if (limited.length === 0) return undefined;
    const counted: Counted[] = [];
    const left: string[] = [];
    for (const entry of limited) {
      const limit = entry.rules.rateLimit!;
      const bucket = `${entry.where}|${agentId}`;
      const recent = within(buckets, bucket, now, limit.windowMs, itself);
      if (recent.length >= limit.count) {
        const resetsIn = recent[recent.length - limit.count] + limit.windowMs - now;
        return {
          decision: 'rate_limited',
          reason: `agent "${agentId}" rate limited: ${limit.text} exceeded (${entry.where}.rate_limit; resets in ${formatDuration(resetsIn)})`,
          facts: { bucket, resetsInMs: Math.max(0, Math.round(resetsIn)) },
        };
      }
      counted.push({ bucket, window: limit.windowMs });
      left.push(`${limit.text} (${limit.count - recent.length - 1} left)`);
    }
    return {
      decision: 'allow',
      reason: `agent "${agentId}" within ${left.join(', ')}`,
      facts: { counted: counted as unknown as JsonValue },
    };
  }
}
