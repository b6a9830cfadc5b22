import type { ToolDefinition } from 'factorly';
import { DEFAULT_MAX_CALLS, type ShadowPolicy } from './policy-types.js';
import { parseConfirm, parseDuration, parseLoop, parseRateLimit } from './shadow-keys.js';

const parsed = new WeakMap<ToolDefinition, ShadowPolicy>();

/**
 * The tool's `shadow` block as the rules read it: its keys parsed (they were checked when the
 * config loaded), once per tool definition. The owner is the entry the block was written on: the
 * server entry of a sub-tool, else the tool itself.
 */
export function policyOf(tool: ToolDefinition): ShadowPolicy {
  let policy = parsed.get(tool);
  if (!policy) {
    const block = (tool.shadow ?? {}) as Record<string, unknown>;
    const confirm = parseConfirm(block.confirm);
    policy = {
      owner: tool.expandedFrom ?? tool.name,
      deny: block.deny as ShadowPolicy['deny'],
      confirm: confirm.selection,
      ...(confirm.standing ? { standing: confirm.standing } : {}),
      rateLimit: block.rate_limit === undefined ? undefined : parseRateLimit(block.rate_limit),
      scope: block.scope as ShadowPolicy['scope'],
      maxCalls: typeof block.max_calls === 'number' ? block.max_calls : DEFAULT_MAX_CALLS,
      logParams: block.log_params as string[] | undefined,
      confirmTimeoutMs: block.timeout === undefined ? undefined : parseDuration(block.timeout),
      loop: parseLoop(block.loop ?? {}),
    };
    parsed.set(tool, policy);
  }
  return policy;
}

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
  const { owner } = policyOf(tool);
  return tool.name.startsWith(`${owner}.`) ? tool.name.slice(owner.length + 1) : tool.name;
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
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds >= size) {
      parts.push(`${Math.floor(seconds / size)}${unit}`);
      seconds %= size;
    }
  }
  if (seconds > 0 || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join('');
}
