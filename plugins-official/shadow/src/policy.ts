import type { LoopPolicy, ShadowPolicy, ToolDefinition } from 'factorly';

/** The reference's defaults: a 5 minute window, a warning at the 4th identical call, a block at the 12th. */
export const LOOP_DEFAULTS: LoopPolicy = { enabled: true, windowMs: 300_000, warn: 4, block: 12 };

/**
 * Whether a `deny`/`confirm` selection covers a tool. `true` covers every tool the block applies
 * to, `false` none; a list names tools by their full name or, for sub-tools of a server entry, by the name
 * relative to the entry (`delete_repo` for `github.delete_repo`).
 */
export function selects(selection: boolean | string[] | undefined, tool: ToolDefinition): boolean {
  if (typeof selection === 'boolean' || selection === undefined) return selection === true;
  return selection.includes(tool.name) || selection.includes(relativeName(tool));
}

export function relativeName(tool: ToolDefinition): string {
  const owner = tool.shadow?.owner;
  return owner && tool.name.startsWith(`${owner}.`) ? tool.name.slice(owner.length + 1) : tool.name;
}

/**
 * The rate-limit bucket of a call. `agent` (the default) gives every agent its own bucket per tool;
 * `tool` shares one bucket per tool between agents; `server` shares one between every sub-tool of
 * the entry the limit is written on; `global` shares one between every tool whose scope is global.
 */
export function bucketOf(policy: ShadowPolicy, tool: string, agentId: string | undefined): string {
  switch (policy.scope ?? 'agent') {
    case 'tool':
      return `tool:${tool}`;
    case 'server':
      return `server:${policy.owner}`;
    case 'global':
      return 'global';
    default:
      return `agent:${agentId ?? '-'}:tool:${tool}`;
  }
}

/** `42s`, `5m`, `1h30m`: how long until something resets, rounded up to the second. */
export function formatDuration(ms: number): string {
  let seconds = Math.max(1, Math.ceil(ms / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['m', 60]] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join('');
}
