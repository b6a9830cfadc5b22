import type { CallNode, CallTree } from 'factorly';

/** A shadow decision drawn on its call's bar, at the moment it was recorded. */
export interface Marker {
  at: number;
  decision: string;
  rule: string;
  reason: string;
}

/** One bar of the waterfall: a call placed by its start offset and sized by its duration. */
export interface WaterfallRow {
  node: CallNode;
  depth: number;
  /** Offset and duration in ms from the root's start. */
  startMs: number;
  durationMs: number;
  running: boolean;
  /** Position and width on the time axis, in percent of the whole tree's span. */
  left: number;
  width: number;
  markers: Marker[];
}

export interface Waterfall {
  rows: WaterfallRow[];
  /** ms from the root's start to the end of the last call. */
  spanMs: number;
}

/** Narrowest bar drawn (percent), so an instant call such as a blocked one stays visible. */
const MIN_WIDTH = 0.4;

/**
 * Lays out a call tree in the order a tracing UI does: depth first, each call under its parent,
 * siblings by start time. A call still running extends to `now`.
 */
export function layoutWaterfall(tree: CallTree, now: number): Waterfall {
  const origin = Date.parse(tree.root.entry.requestedAt);
  const flat: Omit<WaterfallRow, 'left' | 'width' | 'markers'>[] = [];
  const visit = (node: CallNode, depth: number): void => {
    const start = Date.parse(node.entry.requestedAt) - origin;
    const running = node.entry.durationMs === undefined;
    const durationMs = running ? Math.max(0, now - origin - start) : node.entry.durationMs!;
    flat.push({ node, depth, startMs: start, durationMs, running });
    for (const child of [...node.children].sort((a, b) => a.entry.requestedAt.localeCompare(b.entry.requestedAt)))
      visit(child, depth + 1);
  };
  visit(tree.root, 0);
  const spanMs = Math.max(1, ...flat.map((row) => row.startMs + row.durationMs));
  const rows = flat.map((row) => {
    const left = clamp((row.startMs / spanMs) * 100, 0, 100 - MIN_WIDTH);
    const width = clamp((row.durationMs / spanMs) * 100, MIN_WIDTH, 100 - left);
    const markers = row.node.decisions.map((d) => ({
      at: clamp(((Date.parse(d.at) - origin) / spanMs) * 100, left, left + width),
      decision: d.decision,
      rule: d.rule,
      reason: d.reason,
    }));
    return { ...row, left: round(left), width: round(width), markers: markers.map((m) => ({ ...m, at: round(m.at) })) };
  });
  return { rows, spanMs };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, Number.isFinite(value) ? value : low));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
