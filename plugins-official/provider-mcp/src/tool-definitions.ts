import { matchesAnyGlob } from '@factorly/text-kit';
import type { ToolDefinition } from 'factorly';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { parametersFromSchema } from '@factorly/text-kit';

/** Keys of a server entry its sub-tools inherit, and of its plugin-owned settings (`compress`; the filter stays with the entry, as in the reference). */
const INHERITED = ['timeoutMs', 'maxOutput', 'shadow', 'hidden'] as const;

/**
 * An upstream's tools as factorly tools: `<entry>.<remote>` (the remote name with `prefix: false`),
 * parameters with real types for validation, and the declaration kept whole (`declared`: title,
 * annotations, output schema, execution, icons, `_meta`) so an MCP interface lists it as the server did.
 */
export function toolDefinitions(entry: ToolDefinition, remote: readonly Tool[]): ToolDefinition[] {
  return contributed(entry, remote).map((tool) => ({
    ...pick(entry),
    name: entry.spec.prefix === false ? tool.name : `${entry.name}.${tool.name}`,
    type: 'mcp',
    description: tool.description ?? tool.title ?? '',
    hidden: entry.hidden,
    parameters: parametersFromSchema(tool.inputSchema, 'json'),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
    declared: tool as Record<string, unknown>,
    spec: { ...entry.spec, server: entry.name, remote: tool.name },
    source: entry.source,
  }));
}

/**
 * The tools of the server the entry takes: those its `tools:` list names (all, without one) and its
 * `exclude:` list does not; both hold the server's own names, or globs. Unlike `shadow.deny`, which
 * refuses calls to a tool that stays listed, a tool left out here is not factorly's at all.
 */
function contributed(entry: ToolDefinition, remote: readonly Tool[]): Tool[] {
  const { tools: include, exclude } = entry.spec as { tools?: string[]; exclude?: string[] };
  return remote.filter(
    (tool) => (!include || matchesAnyGlob(include, tool.name)) && !(exclude && matchesAnyGlob(exclude, tool.name)),
  );
}

/** Whether the server runs this tool only as a task (MCP 2025-11-25 `execution.taskSupport: required`). */
export function runsAsTask(tool: ToolDefinition): boolean {
  return (tool.declared?.execution as { taskSupport?: unknown } | undefined)?.taskSupport === 'required';
}

function pick(entry: ToolDefinition): Partial<ToolDefinition> {
  const inherited: Partial<ToolDefinition> = Object.fromEntries(
    INHERITED.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key]]),
  );
  const { filter: _filter, ...settings } = entry.settings ?? {};
  return Object.keys(settings).length > 0 ? { ...inherited, settings } : inherited;
}
