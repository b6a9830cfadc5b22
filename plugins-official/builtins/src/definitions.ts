import type { ParameterSpec, ToolDefinition } from 'factorly';
import { ASK_PARAMETERS, ASK_TOOL, ASK_TOOL_TIMEOUT_MS } from './ask-tool.js';
import { HELP_TOOL, HELP_TOPICS } from './help-tool.js';

const SOURCE = { file: 'built-in', line: 0 };
const SHAPED = { maxOutput: 50_000, settings: { compress: 'all' } };
/** What an entry `factorly.shell: {…}` may set besides the common keys: the shell's environment. */
const SHELL_KEYS = ['env', 'env_passthrough'];

function tool(
  name: string,
  description: string,
  parameters: ParameterSpec[],
  extra: Partial<ToolDefinition> = {},
): ToolDefinition {
  return { name, type: 'builtin', description, hidden: false, parameters, spec: {}, source: SOURCE, ...extra };
}

/** The built-in tools with their default oversight (a config entry of the same name may add to `shadow`). */
export function builtinDefinitions(): ToolDefinition[] {
  return [
    tool(
      'factorly.fetch',
      'Fetch a URL (GET by default).\nLoopback, private, link-local and cloud-metadata addresses are refused, also after DNS resolution and redirects, unless shadow.allow_urls lists the URL.',
      [
        { name: 'url', type: 'string', required: true, description: 'http:// or https:// URL' },
        { name: 'method', type: 'enum', enum: ['GET', 'HEAD'], default: 'GET', required: false },
      ],
      SHAPED,
    ),
    tool(
      'factorly.shell',
      'Run a shell command in the project.\nsh -c in the project directory; needs confirmation by default; dangerous commands are refused.',
      [{ name: 'command', type: 'text', required: true, description: 'the command line' }],
      { ...SHAPED, shadow: { confirm: true }, overlayKeys: SHELL_KEYS },
    ),
    tool(
      'factorly.file.read',
      'Read a file in the project.',
      [{ name: 'path', type: 'string', required: true, description: 'path relative to the project directory' }],
      SHAPED,
    ),
    tool(
      'factorly.file.write',
      'Write a file in the project.\nParent directories are created; needs confirmation by default.',
      [
        { name: 'path', type: 'string', required: true, description: 'path relative to the project directory' },
        { name: 'content', type: 'text', required: true },
      ],
      { shadow: { confirm: true } },
    ),
    tool(
      HELP_TOOL,
      'How factorly works and how to work with it: what it is, how your calls are governed (confirmation, limits, denials), your tools by namespace.\n' +
        'Call it first. With `topic` (tools, code, shadow, vault, blueprints) it explains one subject; with `tool` it documents one tool: its parameters and the rules in force for it. Read-only.',
      [
        { name: 'topic', type: 'enum', enum: [...HELP_TOPICS], required: false, description: 'one subject in depth' },
        { name: 'tool', type: 'string', required: false, description: "a tool's name: its documentation" },
      ],
    ),
    tool(
      ASK_TOOL,
      'Ask the person a question and wait for the answer (5 minutes by default).\n' +
        'They answer in their MCP client, the factorly web UI or the terminal; the answer comes back as text, checked against `type` (and `choices`). Use it when you need a decision or a fact only they have; never for a secret.',
      ASK_PARAMETERS,
      { timeoutMs: ASK_TOOL_TIMEOUT_MS },
    ),
  ];
}
