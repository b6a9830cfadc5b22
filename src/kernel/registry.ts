import type { ToolDefinition } from '../contracts/tool.js';

/**
 * The tools a kernel serves, by name, in catalogue order (the config's order, each expanded entry's
 * tools in the order its provider listed them). Built from the validated config; replaced whole when
 * it is reloaded, or one entry at a time when an entry's tools change (an upstream MCP server's list
 * changed). A session (an agent connected through an interface) may see its own tools for an entry:
 * what the upstream lists to a client that can sample is not what it lists to one that cannot.
 */
export class ToolRegistry {
  private catalogue: ToolDefinition[] = [];
  private tools = new Map<string, ToolDefinition>();
  /** Per session: the tools of each entry that session sees instead of the shared ones. */
  private readonly sessions = new Map<string, Map<string, ToolDefinition[]>>();

  constructor(tools: readonly ToolDefinition[]) {
    this.replace(tools);
  }

  /** Swaps in a reloaded catalogue at once: a call sees either the old tools or the new ones. */
  replace(tools: readonly ToolDefinition[]): void {
    this.catalogue = [...tools];
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /**
   * Swaps in the tools one entry now stands for, in the place its old ones had. A tool whose name
   * another tool already has is left out; the names left out are returned.
   */
  replaceEntry(entry: string, tools: readonly ToolDefinition[]): string[] {
    const { kept, clashing } = this.withoutClashes(entry, tools);
    const at = this.catalogue.findIndex((tool) => tool.expandedFrom === entry);
    const others = this.catalogue.filter((tool) => tool.expandedFrom !== entry);
    const index =
      at === -1 ? others.length : this.catalogue.slice(0, at).filter((tool) => tool.expandedFrom !== entry).length;
    this.replace([...others.slice(0, index), ...kept, ...others.slice(index)]);
    return clashing;
  }

  /** What one session sees of an entry from now on (returns the names left out, as `replaceEntry`). */
  setSessionTools(sessionId: string, entry: string, tools: readonly ToolDefinition[]): string[] {
    const { kept, clashing } = this.withoutClashes(entry, tools);
    const entries = this.sessions.get(sessionId) ?? new Map<string, ToolDefinition[]>();
    entries.set(entry, kept);
    this.sessions.set(sessionId, entries);
    return clashing;
  }

  dropSession(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** A tool by name, as the session sees it when one is given. */
  get(name: string, sessionId?: string): ToolDefinition | undefined {
    const own = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (!own) return this.tools.get(name);
    for (const tools of own.values()) {
      const found = tools.find((tool) => tool.name === name);
      if (found) return found;
    }
    const shared = this.tools.get(name);
    return shared?.expandedFrom !== undefined && own.has(shared.expandedFrom) ? undefined : shared;
  }

  /** Every tool in catalogue order, as the session sees it when one is given (hidden ones included). */
  catalogueOf(sessionId?: string): ToolDefinition[] {
    const own = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (!own) return [...this.catalogue];
    const out: ToolDefinition[] = [];
    const placed = new Set<string>();
    for (const tool of this.catalogue) {
      const entry = tool.expandedFrom;
      if (entry === undefined || !own.has(entry)) out.push(tool);
      else if (!placed.has(entry)) out.push(...own.get(entry)!);
      if (entry !== undefined) placed.add(entry);
    }
    // An entry that listed nothing at first has no place yet: its session tools go last.
    for (const [entry, tools] of own) if (!placed.has(entry)) out.push(...tools);
    return out;
  }

  /** Every tool, hidden ones included, sorted by name. */
  all(): ToolDefinition[] {
    return [...this.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Tools shown to people and agents (hidden ones are still callable by name). */
  visible(): ToolDefinition[] {
    return this.all().filter((tool) => !tool.hidden);
  }

  private withoutClashes(
    entry: string,
    tools: readonly ToolDefinition[],
  ): { kept: ToolDefinition[]; clashing: string[] } {
    const clashing = tools.filter((tool) => {
      const other = this.tools.get(tool.name);
      return other !== undefined && other.expandedFrom !== entry;
    });
    return { kept: tools.filter((tool) => !clashing.includes(tool)), clashing: clashing.map((tool) => tool.name) };
  }
}
