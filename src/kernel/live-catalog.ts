import { wellNamed } from '../config/tool-name.js';
import { expandedFrom } from './collect-tools.js';
import type { CatalogChange, ToolCatalog } from '../contracts/gateway.js';
import type { ToolDefinition } from '../contracts/tool.js';
import type { ToolRegistry } from './registry.js';

/**
 * The `ToolCatalog` providers change while serving, bound to the registry once the kernel has
 * built it. Each change is laid into the registry under the entry's rules (as at boot) and told to
 * whoever watches the catalogue. A change for an entry the config no longer has is ignored; one
 * made before the kernel is ready is laid in when it is (the latest per entry wins over what
 * `expand` returned).
 */
export class LiveCatalog implements ToolCatalog {
  private target?: { registry: ToolRegistry; entry: (name: string) => ToolDefinition | undefined };
  private readonly listeners = new Set<(change: CatalogChange) => void>();
  /** Entries listed again before the kernel was ready (an upstream that recovered while others still started): laid in at `bind`. */
  private readonly early = new Map<string, ToolDefinition[]>();

  bind(registry: ToolRegistry, entry: (name: string) => ToolDefinition | undefined): void {
    this.target = { registry, entry };
    for (const [name, tools] of this.early) this.replaceEntry(name, tools);
    this.early.clear();
  }

  /** Follows the changes providers make (the kernel's `watchTools` adds the config watcher's). */
  subscribe(listener: (change: CatalogChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  replaceEntry(entry: string, tools: ToolDefinition[]): string[] {
    if (!this.target) {
      this.early.set(entry, tools);
      return [];
    }
    const definition = this.target.entry(entry);
    if (!definition) return [];
    const clashing = this.target.registry.replaceEntry(entry, wellNamed(expandedFrom(definition, tools)));
    this.tell({ changed: true });
    return clashing;
  }

  setSessionTools(sessionId: string, entry: string, tools: ToolDefinition[]): string[] {
    const definition = this.target?.entry(entry);
    if (!definition) return [];
    const clashing = this.target!.registry.setSessionTools(
      sessionId,
      entry,
      wellNamed(expandedFrom(definition, tools)),
    );
    this.tell({ changed: true, sessionId });
    return clashing;
  }

  dropSession(sessionId: string): void {
    this.target?.registry.dropSession(sessionId);
  }

  changed(sessionId?: string): void {
    this.tell(sessionId === undefined ? { changed: true } : { changed: true, sessionId });
  }

  private tell(change: CatalogChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
