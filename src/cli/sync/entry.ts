/**
 * The MCP server entry factorly writes into an agent's config: how the agent launches
 * `factorly serve` for one project.
 */
export interface ServerEntry {
  command: string;
  args: string[];
}

export interface LaunchSpec {
  /** The Node binary running factorly now (`process.execPath`). */
  node: string;
  /** Absolute path of factorly's `bin/run.js` (symlinks resolved). */
  bin: string;
  /** Absolute path of the project's factorly config. */
  config: string;
  /** Launch `command` from PATH instead of node + bin (e.g. "factorly" for a shared, committed file). */
  command?: string;
}

/**
 * Absolute node + absolute `bin/run.js` by default: agents started from a desktop launcher (Cursor,
 * Claude Desktop) do not get the shell's PATH (nvm, volta, ~/.local/bin), and this node is one that
 * factorly is known to run on. `--config <absolute path>` picks the project whatever directory the
 * agent starts the server in (Claude Code and Cursor have no portable `cwd` key; Codex's config is
 * global). Re-running `factorly sync` after moving factorly or upgrading node updates the entry.
 */
export function serverEntry(spec: LaunchSpec): ServerEntry {
  const serve = ['serve', '--config', spec.config];
  return spec.command ? { command: spec.command, args: serve } : { command: spec.node, args: [spec.bin, ...serve] };
}

/**
 * `current` with `command` and `args` set from `entry` and every other key (env, timeouts, tool
 * filters the user added) kept, in the user's order; a new entry starts with command and args.
 * The diff shown before writing makes every change visible.
 */
export function mergeEntry(current: unknown, entry: ServerEntry): Record<string, unknown> {
  // An entry that reached factorly over HTTP (`url`) has no keys that make sense for stdio.
  const base = isPlainObject(current) && !('url' in current) ? current : {};
  const ours = { command: entry.command, args: entry.args };
  // Spreading keeps the position of keys `base` already has: only their values change.
  return 'command' in base || 'args' in base ? { ...base, ...ours } : { ...ours, ...base };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The `--config` path an existing entry launches, to say when a sync re-points it at another project. */
export function configOf(entry: unknown): string | undefined {
  if (!isPlainObject(entry) || !Array.isArray(entry.args)) return undefined;
  const at = entry.args.indexOf('--config');
  return at >= 0 && typeof entry.args[at + 1] === 'string' ? (entry.args[at + 1] as string) : undefined;
}
