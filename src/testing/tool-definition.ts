import type { ToolDefinition } from '../contracts/tool.js';

/** A tool definition as the config loader makes one: a `cli` tool `t` with nothing set, then `over`. */
export function toolDefinition(over: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name: 't',
    type: 'cli',
    description: '',
    hidden: false,
    parameters: [],
    spec: {},
    source: { file: 'x', line: 1 },
    ...over,
  };
}
