import type { PreparedDefinition, ProjectPaths, ToolCall, ToolDefinition, ToolProvider, ToolResult, ToolSource } from 'factorly';
import { builtinDefinitions } from './definitions.js';
import { fetchTool } from './fetch-tool.js';
import { readTool, writeTool } from './file-tools.js';
import { shellTool } from './shell-tool.js';

/**
 * `type: builtin`: runs the `factorly.*` tools in process. A config entry with this type and a
 * built-in's name adds to that built-in's `shadow` block (its keys win); the tool source then
 * leaves that built-in to the config entry, so each name is served once.
 */
export class BuiltinProvider implements ToolProvider, ToolSource {
  readonly type = 'builtin';
  readonly name = 'builtins';
  readonly keys = [] as const;
  private readonly configured = new Set<string>();

  constructor(private readonly paths: ProjectPaths) {}

  prepare(entry: ToolDefinition): PreparedDefinition {
    const known = builtinDefinitions().map((tool) => tool.name);
    if (!known.includes(entry.name)) return { problems: [`is type builtin, but there is no built-in tool of that name (built-ins: ${known.join(', ')})`] };
    return { problems: entry.parameters.length > 0 ? ['declares parameters, but a built-in\'s parameters are fixed'] : [] };
  }

  async expand(entry: ToolDefinition): Promise<ToolDefinition[]> {
    const builtin = builtinDefinitions().find((tool) => tool.name === entry.name)!;
    this.configured.add(entry.name);
    return [{ ...builtin, hidden: entry.hidden, shadow: entry.shadow ? { ...builtin.shadow, ...entry.shadow } : builtin.shadow, source: entry.source, ...(entry.timeoutMs ? { timeoutMs: entry.timeoutMs } : {}) }];
  }

  /** Built-ins not already declared by the config, minus `disable_builtins: true` (all) or `disabled_builtins: [names]`. */
  tools(context?: { settings: Record<string, unknown> }): ToolDefinition[] {
    const settings = context?.settings ?? {};
    if (settings.disable_builtins === true) return [];
    const disabled = list(settings.disabled_builtins);
    return builtinDefinitions().filter((tool) => !this.configured.has(tool.name) && !disabled.includes(tool.name));
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const shadow = call.tool.shadow;
    const project = this.paths.baseDir;
    switch (call.tool.name) {
      case 'factorly.fetch':
        return fetchTool(call, shadow?.allowUrls ?? []);
      case 'factorly.shell':
        return shellTool(call, project, shadow?.allowPatterns ?? []);
      case 'factorly.file.read':
        return readTool(call, project, shadow?.allowPaths ?? []);
      case 'factorly.file.write':
        return writeTool(call, project, shadow?.allowPaths ?? []);
      default:
        return { output: '', error: `builtin: unknown tool "${call.tool.name}"`, exitCode: 1 };
    }
  }
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}
