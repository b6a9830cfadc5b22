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
  /** On the critical path: the chain of calls, from the root, whose ends decide when the root ended. */
  critical: boolean;
  /** How many calls are below it (a subtree a person can fold away). */
  descendants: number;
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
  const flat: Omit<WaterfallRow, 'left' | 'width' | 'markers' | 'critical'>[] = [];
  const visit = (node: CallNode, depth: number): number => {
    const start = Date.parse(node.entry.requestedAt) - origin;
    const running = node.entry.durationMs === undefined;
    const durationMs = running ? Math.max(0, now - origin - start) : node.entry.durationMs!;
    const row = { node, depth, startMs: start, durationMs, running, descendants: 0 };
    flat.push(row);
    for (const child of [...node.children].sort((a, b) => a.entry.requestedAt.localeCompare(b.entry.requestedAt)))
      row.descendants += 1 + visit(child, depth + 1);
    return row.descendants;
  };
  visit(tree.root, 0);
  const critical = criticalPath(flat);
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
    return {
      ...row,
      left: round(left),
      width: round(width),
      markers: markers.map((m) => ({ ...m, at: round(m.at) })),
      critical: critical.has(row.node),
    };
  });
  return { rows, spanMs };
}

/**
 * The critical path as tracing UIs draw it: from the root, at each call the inner call that ended
 * last (the one the caller was still waiting for), down to a call with none. Only a tree of more
 * than one call has one.
 */
function criticalPath(rows: readonly Pick<WaterfallRow, 'node' | 'durationMs'>[]): Set<CallNode> {
  const path = new Set<CallNode>();
  if (rows.length < 2) return path;
  // When each call ended as recorded (its completion), else as its duration says; a tie goes to the later call.
  const end = new Map(
    rows.map((row) => {
      const completed = row.node.entry.completedAt ? Date.parse(row.node.entry.completedAt) : Number.NaN;
      return [
        row.node,
        Number.isFinite(completed) ? completed : Date.parse(row.node.entry.requestedAt) + row.durationMs,
      ];
    }),
  );
  for (let node: CallNode | undefined = rows[0].node; node;) {
    path.add(node);
    node = node.children.reduce<CallNode | undefined>(
      (last, child) => (last === undefined || end.get(child)! >= end.get(last)! ? child : last),
      undefined,
    );
  }
  return path;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, Number.isFinite(value) ? value : low));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
