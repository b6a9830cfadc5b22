import { FactorlyError, messageOf } from '../base/errors.js';
import { writeWarning } from '../base/printable.js';
import type { LoadedConfig } from '../config/load.js';
import type { ToolDefinition, ToolOverlay, ToolProvider, ToolSource } from '../contracts/tool.js';
import type { KeyedRegistry, OrderedRegistry } from './registries.js';
import { leftOut, toolNameProblem } from '../config/tool-name.js';
import { BUILTIN_PREFIX, OVERLAY_SETTINGS } from '../config/tool-schema.js';

export interface CollectOptions {
  expand: boolean;
  /** Scrubs secrets from the message of a provider that failed to expand an entry. */
  redact?: (text: string, tool: ToolDefinition) => Promise<string>;
}

/**
 * Every tool the kernel serves: config entries (expanded by their provider when it stands for
 * several, like an upstream MCP server) plus the tools plugin sources contribute (built-ins,
 * promoted scripts). Two tools with one name are a config error naming both origins.
 */
export async function collectTools(
  config: LoadedConfig,
  providers: KeyedRegistry<ToolProvider>,
  sources: OrderedRegistry<ToolSource>,
  options: CollectOptions = { expand: true },
): Promise<ToolDefinition[]> {
  const all: ToolDefinition[] = [];
  for (const tool of config.tools) {
    const provider = providers.get(tool.type);
    all.push(
      ...(provider?.expand && options.expand
        ? expandedFrom(tool, await expand(provider, tool, options.redact))
        : [tool]),
    );
  }
  const sourced: ToolDefinition[] = [];
  for (const source of sources.list()) sourced.push(...(await source.tools({ settings: config.settings })));
  all.push(...applyOverlays(config, sourced, providers));
  const seen = new Map<string, ToolDefinition>();
  const problems: string[] = [];
  for (const tool of all) {
    // Names a provider or a plugin made up are held to the config's rule; one an upstream server
    // listed is left out alone (the server's other tools, and every other tool, keep working).
    const badName = toolNameProblem(tool.name);
    if (badName && tool.expandedFrom !== undefined) {
      writeWarning(leftOut(tool, badName));
      continue;
    }
    if (badName) {
      problems.push(`config: tool name ${JSON.stringify(tool.name)} ${badName} (from ${where(tool)})`);
      continue;
    }
    const earlier = seen.get(tool.name);
    if (earlier)
      problems.push(
        `config: duplicate tool "${tool.name}" (found again in ${where(tool)}; first in ${where(earlier)})`,
      );
    else seen.set(tool.name, tool);
  }
  if (problems.length > 0) throw new FactorlyError('CONFIG_INVALID', problems.join('\n'), { data: { problems } });
  return [...seen.values()];
}

/**
 * The tools an entry expanded into, as the catalogue holds them: each marked with its entry, and
 * covered by the entry's rules unless the provider gave it its own.
 */
export function expandedFrom(entry: ToolDefinition, tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) => ({
    ...tool,
    ...(tool.shadow || !entry.shadow ? {} : { shadow: entry.shadow }),
    expandedFrom: entry.name,
  }));
}

/**
 * A provider that fails to expand an entry at boot (an upstream server that would not start) may
 * quote what it was given, such as the server's stderr echoing its secret env: the message is
 * scrubbed as a call's error would be. The new error carries no cause, whose text would still hold it.
 */
async function expand(
  provider: ToolProvider,
  tool: ToolDefinition,
  redact: CollectOptions['redact'],
): Promise<ToolDefinition[]> {
  try {
    return await provider.expand!(tool);
  } catch (error) {
    if (!redact) throw error;
    const message = await redact(messageOf(error), tool);
    throw new FactorlyError(FactorlyError.isInstance(error) ? error.code : 'UPSTREAM_FAILED', message);
  }
}

/** Lays each entry that adjusts a built-in over the built-in tool it names (each `shadow` key the user set wins). */
function applyOverlays(
  config: LoadedConfig,
  sourced: ToolDefinition[],
  providers: KeyedRegistry<ToolProvider>,
): ToolDefinition[] {
  const byName = new Map(sourced.map((tool) => [tool.name, tool]));
  const problems: string[] = [];
  for (const overlay of config.overlays) {
    const tool = byName.get(overlay.name);
    if (!tool) {
      const builtins = [...byName.keys()].filter((name) => name.startsWith(BUILTIN_PREFIX));
      problems.push(
        `config: tool "${overlay.name}" adjusts a built-in tool, but no built-in tool has that name (${overlay.source.file}:${overlay.source.line}; built-in tools: ${builtins.join(', ') || 'none'})`,
      );
      continue;
    }
    const { shadow, timeoutMs, maxOutput, hidden } = overlay;
    const adjusted: ToolDefinition = {
      ...tool,
      ...(shadow ? { shadow: { ...tool.shadow, ...shadow } } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxOutput === undefined ? {} : { maxOutput }),
      ...(hidden === undefined ? {} : { hidden }),
      ...(overlay.spec ? { spec: { ...tool.spec, ...overlay.spec } } : {}),
    };
    problems.push(...overlaySpecProblems(overlay, adjusted, providers));
    byName.set(tool.name, adjusted);
  }
  if (problems.length > 0) throw new FactorlyError('CONFIG_INVALID', problems.join('\n'), { data: { problems } });
  return sourced.map((tool) => byName.get(tool.name) ?? tool);
}

/** Provider keys on an overlay: only those the built-in lists, checked by its provider like a tool's own. */
function overlaySpecProblems(
  overlay: ToolOverlay,
  tool: ToolDefinition,
  providers: KeyedRegistry<ToolProvider>,
): string[] {
  if (!overlay.spec) return [];
  const allowed = tool.overlayKeys ?? [];
  const at = (key?: string) => `${overlay.source.file}:${(key && overlay.specLines?.[key]) ?? overlay.source.line}`;
  const unknown = Object.keys(overlay.spec).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    return unknown.map(
      (key) =>
        `config: tool "${overlay.name}" has key "${key}", but an entry for a built-in tool may only hold ${[...OVERLAY_SETTINGS, ...allowed].join(', ')} (${at(key)})`,
    );
  }
  const prepared = providers.get(tool.type)?.prepare?.(tool);
  return (prepared?.problems ?? []).map(
    (message) => `config: tool "${overlay.name}" ${message} (${at(Object.keys(overlay.spec!)[0])})`,
  );
}

function where(tool: ToolDefinition): string {
  return `${tool.source.file}:${tool.source.line}`;
}
