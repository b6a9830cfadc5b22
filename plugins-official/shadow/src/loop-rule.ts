import type { Projection, Recorded, ShadowContext, ShadowRule, ShadowVerdict } from 'factorly';
import { formatDuration, policyOf } from './policy.js';
import { emptyWindows, itself, remember, within, type TimeWindows } from './windows.js';

export const LOOP_RULE = 'loop-detection';
/** How many recent fingerprints per agent are kept for spotting A-B-A-B alternation. */
const RECENT = 64;
/** Identical calls kept per fingerprint: enough to count up to the highest `loop.block` the config accepts (1000). */
const REPEATS = 1000;

interface RecentCall {
  fingerprint: string;
  at: number;
}

export interface LoopWindows {
  /** `<agent>|<fingerprint>` → times (epoch ms) of identical calls still inside their window. */
  repeats: TimeWindows;
  /** Per agent, its latest calls' fingerprints and times, oldest first. */
  recent: TimeWindows<RecentCall>;
}

const atOf = (call: RecentCall): number => call.at;

/** Loop windows as a fold over the loop rule's own decisions, each carrying the call's fingerprint. */
export const loopProjection: Projection<LoopWindows> = {
  module: import.meta.url,
  name: 'shadow.loop.windows',
  // Snapshots of it are kept beside the log: bump this whenever the fold (or windows.ts) changes.
  version: 1,
  init: () => ({ repeats: emptyWindows(), recent: emptyWindows<RecentCall>() }),
  evolve(windows, event: Recorded) {
    if (event.type !== 'shadow.decided' || event.data.rule !== LOOP_RULE) return windows;
    const { fingerprint, agent, window } = event.data.facts ?? {};
    if (typeof fingerprint !== 'string' || typeof agent !== 'string' || typeof window !== 'number') return windows;
    const at = Date.parse(event.at);
    remember(windows.repeats, `${agent}|${fingerprint}`, at, window, at, itself, REPEATS);
    remember(windows.recent, agent, at, window, { fingerprint, at }, atOf, RECENT);
    return windows;
  },
};

/**
 * Loop detection for every tool: the same call (tool + canonical params) repeated, or two calls
 * alternating (A-B-A-B), within the window warns at `warn` calls and blocks at `block`. Blocked
 * calls count too, so an agent stuck in a loop stays blocked until the window slides past it.
 */
export class LoopRule implements ShadowRule<LoopWindows> {
  readonly name = LOOP_RULE;
  readonly order = 40;
  readonly history = loopProjection;

  evaluate({ tool, agentId, fingerprint, now }: ShadowContext, windows: LoopWindows): ShadowVerdict | undefined {
    const { loop } = policyOf(tool);
    if (!loop.enabled) return undefined;
    const agent = agentId ?? '-';
    const facts = { fingerprint, agent, window: loop.windowMs };
    const repeated = within(windows.repeats, `${agent}|${fingerprint}`, now, loop.windowMs, itself).length + 1;
    const recent = within(windows.recent, agent, now, loop.windowMs, atOf).map((call) => call.fingerprint);
    const alternating = alternationLength([...recent, fingerprint]);
    const span = formatDuration(loop.windowMs);
    if (repeated >= loop.block) {
      return {
        decision: 'loop_blocked',
        reason: `tool "${tool.name}" blocked: identical call repeated too many times (possible agent loop)`,
        facts,
      };
    }
    if (alternating >= loop.block) {
      return {
        decision: 'loop_blocked',
        reason: `tool "${tool.name}" blocked: two calls alternating too many times (possible agent loop)`,
        facts,
      };
    }
    if (repeated >= loop.warn) {
      return {
        decision: 'warn',
        reason: `tool "${tool.name}": identical call repeated ${repeated} times within ${span} (possible agent loop)`,
        facts,
      };
    }
    if (alternating >= loop.warn) {
      return {
        decision: 'warn',
        reason: `tool "${tool.name}": two calls alternating ${alternating} times within ${span} (possible agent loop)`,
        facts,
      };
    }
    return { decision: 'allow', reason: `call ${repeated} of its kind within ${span}`, facts };
  }
}

/** Length of the A-B-A-B… run (A ≠ B) that ends the sequence; 0 when it does not end in one. */
export function alternationLength(sequence: readonly string[]): number {
  const n = sequence.length;
  if (n < 2 || sequence[n - 1] === sequence[n - 2]) return 0;
  let length = 2;
  while (length < n && sequence[n - 1 - length] === sequence[n - 1 - length + 2]) length += 1;
  return length;
}
