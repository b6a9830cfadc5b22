import type { ToolDefinition } from './contracts/tool.js';

/** The tools a kernel serves, by name. Built from the validated config; replaced whole when it is reloaded. */
export class ToolRegistry {
  private tools: Map<string, ToolDefinition>;

  constructor(tools: readonly ToolDefinition[]) {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Swaps in a reloaded catalogue at once: a call sees either the old tools or the new ones. */
  replace(tools: readonly ToolDefinition[]): void {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Every tool, hidden ones included, sorted by name. */
  all(): ToolDefinition[] {
    return [...this.tools.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Tools shown to people and agents (hidden ones are still callable by name). */
  visible(): ToolDefinition[] {
    return this.all().filter((tool) => !tool.hidden);
  }

}
