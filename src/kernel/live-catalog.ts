import { expandedFrom } from './collect-tools.js';
import type { CatalogChange, ToolCatalog } from '../contracts/gateway.js';
import type { ToolDefinition } from '../contracts/tool.js';
import type { ToolRegistry } from './registry.js';
import { toolNameProblem } from './config/tool-name.js';

/**
 * The `ToolCatalog` providers change while serving, bound to the registry once the kernel has
 * built it. Each change is laid into the registry under the entry's rules (as at boot) and told to
 * whoever watches the catalogue. A change for an entry the config no longer has is ignored, as is
 * one before the kernel is ready (what providers list while the catalogue is built is what `expand`
 * returns).
 */
export class LiveCatalog implements ToolCatalog {
  private target?: { registry: ToolRegistry; entry: (name: string) => ToolDefinition | undefined };
  private readonly listeners = new Set<(change: CatalogChange) => void>();

  bind(registry: ToolRegistry, entry: (name: string) => ToolDefinition | undefined): void {
    this.target = { registry, entry };
  }

  /** Follows the changes providers make (the kernel's `watchTools` adds the config watcher's). */
  subscribe(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  replaceEntry(entry: string, tools: ToolDefinition[]): string[] {
    const definition = this.target?.entry(entry);
    if (!definition) return [];
    const { named, refused } = withNames(tools);
    const clashing = this.target!.registry.replaceEntry(entry, expandedFrom(definition, named));
    this.tell({ changed: true });
    return [...clashing, ...refused];
  }

  setSessionTools(sessionId: string, entry: string, tools: ToolDefinition[]): string[] {
    const definition = this.target?.entry(entry);
    if (!definition) return [];
    const { named, refused } = withNames(tools);
    const clashing = this.target!.registry.setSessionTools(sessionId, entry, expandedFrom(definition, named));
    this.tell({ changed: true, sessionId });
    return [...clashing, ...refused];
  }

  dropSession(sessionId: string): void {
    this.target?.registry.dropSession(sessionId);
  }

  private tell(change: CatalogChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** A listing held to the name rule of the config (as at boot): a tool whose name is refused is left out. */
function withNames(tools: readonly ToolDefinition[]): { named: ToolDefinition[]; refused: string[] } {
  const refused = tools.filter((tool) => toolNameProblem(tool.name) !== undefined);
  return { named: tools.filter((tool) => !refused.includes(tool)), refused: refused.map((tool) => tool.name) };
}
