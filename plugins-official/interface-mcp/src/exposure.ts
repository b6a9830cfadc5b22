import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type { ToolDefinition } from 'factorly';

export type ExposureMode = 'local' | 'remote';

/**
 * The built-ins an HTTP (remote) client may see: the ones that act on nothing of this machine
 * (`factorly.fetch`, guarded against local and private addresses; `factorly.help`, read-only;
 * `factorly.ask`, which only puts a question to the person).
 */
const REMOTE_BUILTINS = new Set(['factorly.fetch', 'factorly.help', 'factorly.ask']);

/**
 * The tools an MCP client is shown: visible ones, minus those the shadow policy denies outright, for
 * everyone or for this agent (listing a tool every call of which is refused only wastes the agent's
 * turns; known when the shadow plugin is installed), minus, for a remote (HTTP) client, the
 * built-ins that act on this machine and tools marked `localOnly`. Hidden tools stay callable by
 * name; denied ones are refused by the deny rules when called.
 */
export function exposedTools(
  tools: readonly ToolDefinition[],
  mode: ExposureMode,
  policies?: ShadowPolicies,
  agentId?: string,
): ToolDefinition[] {
  return tools.filter((tool) => !tool.hidden && !policies?.denies(tool, agentId) && availableOver(tool, mode));
}

/** Whether a client of this kind may call the tool at all (hidden and denied ones go to the pipeline, which decides). */
export function availableOver(tool: ToolDefinition, mode: ExposureMode): boolean {
  return mode === 'local' || remoteSafe(tool);
}

function remoteSafe(tool: ToolDefinition): boolean {
  if (tool.spec.localOnly === true) return false;
  return !tool.name.startsWith('factorly.') || REMOTE_BUILTINS.has(tool.name);
}
