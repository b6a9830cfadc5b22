/** Statuses with a colour of their own, in the order charts stack them (bottom first). */
const KNOWN = ['success', 'error', 'timeout', 'cancelled', 'interrupted', 'blocked', 'running'] as const;

/**
 * The CSS class that colours a status in badges, bars and legends. Statuses this UI does not know
 * (a newer writer's) get the neutral class rather than an error.
 */
export function statusClass(status: string): string {
  return (KNOWN as readonly string[]).includes(status) ? `s-${status}` : 's-other';
}

/** Statuses in stacking order: the known ones first, then any others by name. */
export function stackOrder(statuses: Iterable<string>): string[] {
  const present = new Set(statuses);
  const known = KNOWN.filter((status) => present.has(status));
  const others = [...present].filter((status) => !(KNOWN as readonly string[]).includes(status)).sort();
  return [...known, ...others];
}
