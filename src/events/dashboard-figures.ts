import { mergeBins, quantile, type DurationBins } from './duration-histogram.js';
import {
  DASHBOARD_RANGES,
  NO_AGENT,
  startOf,
  type Bucket,
  type DashboardRange,
  type DashboardState,
} from './projections/dashboard.js';

/** How many entries each ranked list keeps. */
const TOP = 10;
/** Reasons shown per blocked rule. */
const REASONS_SHOWN = 3;

export interface DashboardFigures {
  range: DashboardRange;
  /** Epoch ms: the timeline covers [from, to), one bar per `stepMs`. */
  from: number;
  to: number;
  stepMs: number;
  calls: number;
  /** Calls by status over the whole range, most first. */
  statuses: { status: string; calls: number }[];
  /** One entry per step, oldest first, empty steps included. */
  timeline: { start: number; statuses: Record<string, number> }[];
  tools: { tool: string; calls: number }[];
  /**
   * Blocked calls by what stopped them (a rule, `invalid`, `unknown_tool`), most first, each with its
   * most frequent reasons: a reason naming a time ("resets in 46s") does not split its rule.
   */
  blocked: { rule: string; calls: number; reasons: { reason: string; calls: number }[] }[];
  /** Calls per agent id (`iface:<name>` for calls no agent made), busiest first. */
  agents: { agent: string; calls: number }[];
  /** How many agents (not counting calls no agent made) called in the range. */
  agentCount: number;
  /** Duration percentiles of the calls that ran, per tool, busiest first. */
  durations: { tool: string; calls: number; p50: number; p95: number }[];
}

/** The figures of one range ending now, merged from the buckets the dashboard projection keeps. */
export function dashboardFigures(state: DashboardState, range: DashboardRange, now: number): DashboardFigures {
  const { spanMs, stepMs } = DASHBOARD_RANGES[range];
  const to = startOf(range, now) + stepMs;
  const from = to - spanMs;
  const statuses = new Map<string, number>();
  const tools = new Map<string, { calls: number; durations: DurationBins }>();
  const blocked = new Map<string, Map<string, number>>();
  const agents = new Map<string, number>();
  const timeline: DashboardFigures['timeline'] = [];
  for (let start = from; start < to; start += stepMs) {
    const bucket = state.tiers[range].get(start);
    timeline.push({ start, statuses: bucket ? Object.fromEntries(bucket.statuses) : {} });
    if (bucket) merge(bucket, { statuses, tools, blocked, agents });
  }
  return {
    range,
    from,
    to,
    stepMs,
    calls: sum(statuses.values()),
    statuses: ranked(statuses).map(([status, calls]) => ({ status, calls })),
    timeline,
    tools: ranked(new Map([...tools].map(([tool, t]) => [tool, t.calls])))
      .slice(0, TOP)
      .map(([tool, calls]) => ({ tool, calls })),
    blocked: blockedOf(blocked),
    agents: ranked(agents)
      .slice(0, TOP)
      .map(([agent, calls]) => ({ agent, calls })),
    agentCount: [...agents.keys()].filter((agent) => !agent.startsWith(NO_AGENT)).length,
    durations: durationsOf(tools),
  };
}

interface Totals {
  statuses: Map<string, number>;
  tools: Map<string, { calls: number; durations: DurationBins }>;
  /** Rule → reason → calls. */
  blocked: Map<string, Map<string, number>>;
  agents: Map<string, number>;
}

function merge(bucket: Bucket, into: Totals): void {
  for (const [status, n] of bucket.statuses) add(into.statuses, status, n);
  for (const [agent, n] of bucket.agents) add(into.agents, agent, n);
  for (const [tool, figures] of bucket.tools) {
    const total = into.tools.get(tool) ?? { calls: 0, durations: new Map() };
    total.calls += figures.calls;
    mergeBins(total.durations, figures.durations);
    into.tools.set(tool, total);
  }
  for (const [rule, reasons] of bucket.blocked) {
    const total = into.blocked.get(rule) ?? new Map<string, number>();
    for (const [reason, calls] of reasons) add(total, reason, calls);
    into.blocked.set(rule, total);
  }
}

/** One row per rule, busiest first, with its most frequent reasons. */
function blockedOf(blocked: Totals['blocked']): DashboardFigures['blocked'] {
  return ranked(new Map([...blocked].map(([rule, reasons]) => [rule, sum(reasons.values())])))
    .slice(0, TOP)
    .map(([rule, calls]) => ({
      rule,
      calls,
      reasons: ranked(blocked.get(rule)!)
        .slice(0, REASONS_SHOWN)
        .map(([reason, n]) => ({ reason, calls: n })),
    }));
}

function durationsOf(tools: Totals['tools']): DashboardFigures['durations'] {
  const rows: DashboardFigures['durations'] = [];
  for (const [tool, { durations }] of tools) {
    const ran = sum(durations.values());
    const p50 = quantile(durations, 0.5);
    const p95 = quantile(durations, 0.95);
    if (ran > 0 && p50 !== undefined && p95 !== undefined) rows.push({ tool, calls: ran, p50, p95 });
  }
  return rows.sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool)).slice(0, TOP);
}

/** Entries with a count, most first, ties by name (so the order never depends on insertion). */
function ranked(counts: Map<string, number>): [string, number][] {
  return [...counts].filter(([, n]) => n > 0).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

function add(counts: Map<string, number>, key: string, n: number): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
