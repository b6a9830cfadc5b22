import { FactorlyError } from './base/errors.js';
import type { LoadedConfig } from './config/load.js';
import type { ToolDefinition, ToolProvider, ToolSource } from './contracts/tool.js';
import type { KeyedSlot, OrderedSlot } from './slots.js';

/**
 * Every tool the kernel serves: config entries (expanded by their provider when it stands for
 * several, like an upstream MCP server) plus the tools plugin sources contribute (built-ins,
 * promoted scripts). Two tools with one name are a config error naming both origins.
 */
export async function collectTools(
  config: LoadedConfig,
  providers: KeyedSlot<ToolProvider>,
  sources: OrderedSlot<ToolSource>,
): Promise<ToolDefinition[]> {
  const all: ToolDefinition[] = [];
  for (const tool of config.tools) {
    const provider = providers.get(tool.type);
    all.push(...(provider?.expand ? await provider.expand(tool) : [tool]));
  }
  for (const source of sources.list()) all.push(...(await source.tools({ settings: config.settings })));
  const seen = new Map<string, ToolDefinition>();
  const problems: string[] = [];
  for (const tool of all) {
    const earlier = seen.get(tool.name);
    if (earlier) problems.push(`config: duplicate tool "${tool.name}" (found again in ${where(tool)}; first in ${where(earlier)})`);
    else seen.set(tool.name, tool);
  }
  if (problems.length > 0) throw new FactorlyError('CONFIG_INVALID', problems.join('\n'), { data: { problems } });
  return [...seen.values()];
}

function where(tool: ToolDefinition): string {
  return `${tool.source.file}:${tool.source.line}`;
}
