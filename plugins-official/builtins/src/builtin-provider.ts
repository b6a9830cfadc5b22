import type {
  AskPerson,
  PreparedDefinition,
  ProjectPaths,
  ToolCall,
  ToolDefinition,
  ToolProvider,
  ToolResult,
  ToolSource,
} from 'factorly';
import { envPassthroughProblems } from '@factorly/process-kit';
import { ASK_TOOL, askTool } from './ask-tool.js';
import { builtinDefinitions } from './definitions.js';
import { HELP_TOOL, helpTool, type HelpSources } from './help-tool.js';
import { fetchTool } from './fetch-tool.js';
import { readTool, writeTool } from './file-tools.js';
import { shellTool } from './shell-tool.js';

/**
 * `type: builtin`: runs the `factorly.*` tools in process, and contributes them as a tool source.
 * A config entry named after a built-in (with `type: builtin` or no type) adjusts its shadow block,
 * timeout, max_output or hidden flag; the kernel lays those over the definitions given here.
 */
export class BuiltinProvider implements ToolProvider, ToolSource {
  readonly type = 'builtin';
  readonly name = 'builtins';
  readonly keys = [] as const;
  /** `factorly.shell: {type: builtin, …}` adjusts the built-in, as an entry without a type does. */
  readonly adjustsOnly = true;

  constructor(
    private readonly paths: ProjectPaths,
    /** What factorly.ask and factorly.help reach: the kernel's AskPerson, the live catalogue and rules. */
    private readonly services: { people: AskPerson; help: HelpSources },
  ) {}

  /** Every built-in, minus `disable_builtins: true` (all) or `disabled_builtins: [names]`. */
  tools(context?: { settings: Record<string, unknown> }): ToolDefinition[] {
    const settings = context?.settings ?? {};
    if (settings.disable_builtins === true) return [];
    const disabled = list(settings.disabled_builtins);
    return builtinDefinitions().filter((tool) => !disabled.includes(tool.name));
  }

  /** An entry adjusting `factorly.shell` may set its `env` and `env_passthrough`: checked at load. */
  prepare(tool: ToolDefinition): PreparedDefinition {
    const { env, env_passthrough: passthrough } = tool.spec;
    const problems = envPassthroughProblems(passthrough);
    const isStringMap =
      typeof env === 'object' &&
      env !== null &&
      !Array.isArray(env) &&
      Object.values(env).every((v) => typeof v !== 'object');
    if (env !== undefined && !isStringMap) problems.push('has "env" that is not a mapping of names to strings');
    return { problems };
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const allowed = (key: 'allow_urls' | 'allow_patterns' | 'allow_paths'): string[] => list(call.tool.shadow?.[key]);
    const project = this.paths.baseDir;
    const { stateDir, logPath, mainFile, globalDir } = this.paths;
    const files = { projectDir: project, internal: [stateDir, logPath, mainFile, globalDir] };
    switch (call.tool.name) {
      case 'factorly.fetch':
        return fetchTool(call, allowed('allow_urls'));
      case 'factorly.shell':
        return shellTool(call, project, allowed('allow_patterns'));
      case 'factorly.file.read':
        return readTool(call, files, allowed('allow_paths'));
      case 'factorly.file.write':
        return writeTool(call, files, allowed('allow_paths'));
      case HELP_TOOL:
        return helpTool(call, this.services.help);
      case ASK_TOOL:
        return askTool(call, this.services.people);
      default:
        return { output: '', error: `builtin: unknown tool "${call.tool.name}"`, exitCode: 1 };
    }
  }
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}
