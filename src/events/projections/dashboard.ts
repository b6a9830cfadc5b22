import type { Recorded } from '../envelope.js';
import { addDuration, type DurationBins } from '../duration-histogram.js';
import type { Projection } from '../projection.js';

/** The time ranges the dashboard shows, each with the width of one bar of its timeline. */
export const DASHBOARD_RANGES = {
  '1h': { spanMs: 3_600_000, stepMs: 60_000 },
  '24h': { spanMs: 86_400_000, stepMs: 900_000 },
  '7d': { spanMs: 604_800_000, stepMs: 7_200_000 },
} as const;

export type DashboardRange = keyof typeof DASHBOARD_RANGES;
export const RANGE_NAMES = Object.keys(DASHBOARD_RANGES) as DashboardRange[];

/** Calls no agent made are counted under `iface:<interface>` (a terminal's `iface:cli`). */
export const NO_AGENT = 'iface:';

/** A call still running is counted under this status until its completion moves it. */
export const RUNNING = 'running';

export interface ToolBucket {
  calls: number;
  /** Durations of the calls that ran (blocked calls never reached the tool). */
  durations: DurationBins;
}

/** What the calls requested within one step of one range did. Keyed by names: Maps, never objects. */
export interface Bucket {
  statuses: Map<string, number>;
  tools: Map<string, ToolBucket>;
  /** Blocked calls by what stopped them (a rule, `invalid`, `unknown_tool`), then by reason. */
  blocked: Map<string, Map<string, number>>;
  /** Calls by agent id, or `iface:<name>` for calls no agent made (a terminal). */
  agents: Map<string, number>;
}

interface OpenCall {
  at: number;
  tool: string;
  agent: string;
}

export interface DashboardState {
  /** Per range: bucket start (epoch ms) → bucket, kept for one span behind the newest event. */
  tiers: Record<DashboardRange, Map<number, Bucket>>;
  /** Calls requested and not completed yet, so the completion lands in the bucket of the request. */
  open: Map<string, OpenCall>;
  /** Epoch ms of the newest event folded. */
  latest: number;
}

/** Distinct reasons kept per rule and bucket; rarer ones are counted together, so state stays small. */
const MAX_REASONS = 20;
export const OTHER_REASONS = '(other reasons)';
const MAX_REASON_LENGTH = 200;

/**
 * The dashboard's figures as a pure fold: every call is counted in the bucket of the minute (hour,
 * …) it was requested in, for each range, and old buckets drop out one span behind the newest event,
 * so the state stays bounded and a range is read by merging at most a hundred buckets
 * (`dashboard-figures.ts`). Every call counts, inner calls of scripts included; an inner call
 * without an agent counts for its root's.
 */
export const dashboardProjection: Projection<DashboardState> & { readonly version: number } = {
  module: import.meta.url,
  name: 'dashboard',
  version: 2,
  init: () => ({ tiers: { '1h': new Map(), '24h': new Map(), '7d': new Map() }, open: new Map(), latest: 0 }),
  evolve(state, event) {
    if (event.type === 'call.requested') requested(state, event);
    else if (event.type === 'call.completed') completed(state, event);
    else if (event.type === 'call.interrupted') interrupted(state, event);
    return state;
  },
};

function requested(state: DashboardState, event: Recorded<'call.requested'>): void {
  const at = Date.parse(event.at);
  if (!Number.isFinite(at)) return;
  const { callId, rootId, tool, iface, agentId } = event.data;
  const agent = agentId ?? state.open.get(rootId)?.agent ?? `${NO_AGENT}${iface}`;
  advance(state, at);
  state.open.set(callId, { at, tool, agent });
  for (const range of RANGE_NAMES) {
    const bucket = bucketAt(state, range, at, true);
    if (!bucket) continue;
    bump(bucket.statuses, RUNNING, 1);
    bump(bucket.agents, agent, 1);
    const figures = bucket.tools.get(tool) ?? { calls: 0, durations: new Map() };
    figures.calls += 1;
    bucket.tools.set(tool, figures);
  }
}

function completed(state: DashboardState, event: Recorded<'call.completed'>): void {
  const call = state.open.get(event.data.callId);
  if (!call) return;
  state.open.delete(event.data.callId);
  const { status, blockedBy, error, durationMs } = event.data;
  for (const range of RANGE_NAMES) {
    const bucket = bucketAt(state, range, call.at, false);
    if (!bucket) continue;
    bump(bucket.statuses, RUNNING, -1);
    bump(bucket.statuses, String(status), 1);
    if (status === 'blocked') countBlocked(bucket, blockedBy ?? 'unknown', reasonOf(error));
    else if (typeof durationMs === 'number') {
      const figures = bucket.tools.get(call.tool);
      if (figures) addDuration(figures.durations, durationMs);
    }
  }
}

/** A call whose process ended before it completed: no longer running, with no duration to count. */
function interrupted(state: DashboardState, event: Recorded<'call.interrupted'>): void {
  const call = state.open.get(event.data.callId);
  if (!call) return;
  state.open.delete(event.data.callId);
  for (const range of RANGE_NAMES) {
    const bucket = bucketAt(state, range, call.at, false);
    if (!bucket) continue;
    bump(bucket.statuses, RUNNING, -1);
    bump(bucket.statuses, 'interrupted', 1);
  }
}

function countBlocked(bucket: Bucket, rule: string, reason: string): void {
  const reasons = bucket.blocked.get(rule) ?? new Map<string, number>();
  bucket.blocked.set(rule, reasons);
  bump(reasons, reasons.has(reason) || reasons.size < MAX_REASONS ? reason : OTHER_REASONS, 1);
}

function reasonOf(error: string | undefined): string {
  const line = (error ?? '').trim().split('\n')[0];
  return line.length > MAX_REASON_LENGTH ? `${line.slice(0, MAX_REASON_LENGTH - 1)}…` : line;
}

/** Moves the newest time forward and drops what fell more than a span behind it. */
function advance(state: DashboardState, at: number): void {
  if (at <= state.latest) return;
  const crossed = RANGE_NAMES.filter((range) => startOf(range, at) !== startOf(range, state.latest));
  state.latest = at;
  for (const range of crossed) {
    const oldest = startOf(range, at) - DASHBOARD_RANGES[range].spanMs;
    for (const start of state.tiers[range].keys()) if (start < oldest) state.tiers[range].delete(start);
  }
  if (crossed.includes('7d')) {
    // A call open for longer than the widest range can no longer change any figure (its writer is gone).
    const oldest = at - DASHBOARD_RANGES['7d'].spanMs;
    for (const [callId, call] of state.open) if (call.at < oldest) state.open.delete(callId);
  }
}

function bucketAt(state: DashboardState, range: DashboardRange, at: number, create: boolean): Bucket | undefined {
  const start = startOf(range, at);
  const tier = state.tiers[range];
  let bucket = tier.get(start);
  if (!bucket && create && start >= startOf(range, state.latest) - DASHBOARD_RANGES[range].spanMs) {
    bucket = { statuses: new Map(), tools: new Map(), blocked: new Map(), agents: new Map() };
    tier.set(start, bucket);
  }
  return bucket;
}

export function startOf(range: DashboardRange, at: number): number {
  const { stepMs } = DASHBOARD_RANGES[range];
  return Math.floor(at / stepMs) * stepMs;
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
