/** Times (epoch ms) per key, each key with the window its events were recorded under. */
export interface TimeWindows<T = number> {
  entries: Map<string, { window: number; items: T[] }>;
  /** Event time of the last sweep: sweeps happen on event time, so a replay sweeps at the same points. */
  sweptAt: number;
}

/** How often (in event time) keys whose window has passed are dropped. */
const SWEEP_EVERY_MS = 60_000;

export function emptyWindows<T>(): TimeWindows<T> {
  return { entries: new Map(), sweptAt: 0 };
}

/**
 * Adds `item` (seen at `at`) under `key`, keeping only items still inside `window`, and now and then
 * drops keys nothing recent is left in, so a long-running process holds only what can still count.
 */
export function remember<T>(
  windows: TimeWindows<T>,
  key: string,
  at: number,
  window: number,
  item: T,
  timeOf: (item: T) => number,
  keep = Infinity,
): void {
  // Items arrive in time order (give or take clock skew between processes), so expired ones sit at
  // the front: dropping them there keeps a fold linear in the number of events.
  const items = windows.entries.get(key)?.items ?? [];
  let expired = 0;
  while (expired < items.length && timeOf(items[expired]) <= at - window) expired += 1;
  items.splice(0, expired);
  items.push(item);
  if (items.length > keep) items.splice(0, items.length - keep);
  windows.entries.set(key, { window, items });
  if (at - windows.sweptAt < SWEEP_EVERY_MS) return;
  windows.sweptAt = at;
  for (const [other, { window: span, items: held }] of windows.entries) {
    if (held.length === 0 || timeOf(held[held.length - 1]) <= at - span) windows.entries.delete(other);
  }
}

/** The items under `key` still inside `window` at `now`. */
export function within<T>(
  windows: TimeWindows<T>,
  key: string,
  now: number,
  window: number,
  timeOf: (item: T) => number,
): T[] {
  return (windows.entries.get(key)?.items ?? []).filter((item) => timeOf(item) > now - window);
}

export const itself = (at: number): number => at;
