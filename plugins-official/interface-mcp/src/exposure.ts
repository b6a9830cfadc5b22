import type { ToolDefinition } from 'factorly';

export type ExposureMode = 'local' | 'remote';

/** The built-ins an HTTP (remote) client may see: the seed allows fetch only. */
const REMOTE_BUILTINS = new Set(['factorly.fetch']);

/**
 * The tools an MCP client is shown: visible ones, minus those shadow policy denies outright
 * (listing a tool every call of which is refused only wastes the agent's turns), minus, for a
 * remote (HTTP) client, the built-ins that act on this machine and tools marked `localOnly`.
 * Hidden tools stay callable by name; denied ones are refused by the deny rule when called.
 */
export function exposedTools(tools: readonly ToolDefinition[], mode: ExposureMode): ToolDefinition[] {
  return tools.filter((tool) => !tool.hidden && !deniedOutright(tool) && availableOver(tool, mode));
}

/** Whether a client of this kind may call the tool at all (hidden and denied ones go to the pipeline, which decides). */
export function availableOver(tool: ToolDefinition, mode: ExposureMode): boolean {
  return mode === 'local' || remoteSafe(tool);
}

function deniedOutright(tool: ToolDefinition): boolean {
  return covers(tool, tool.shadow?.deny);
}

/** Whether a `deny`/`confirm` setting (true, or a list of (sub-)tool names relative to its owner or full) covers the tool. */
export function covers(tool: ToolDefinition, setting: boolean | string[] | undefined): boolean {
  if (setting === true) return true;
  if (!Array.isArray(setting)) return false;
  const relative = tool.name.startsWith(`${tool.shadow!.owner}.`) ? tool.name.slice(tool.shadow!.owner.length + 1) : tool.name;
  return setting.includes(tool.name) || setting.includes(relative);
}

function remoteSafe(tool: ToolDefinition): boolean {
  if (tool.spec.localOnly === true) return false;
  return !tool.name.startsWith('factorly.') || REMOTE_BUILTINS.has(tool.name);
}
