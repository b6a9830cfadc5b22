import type { ParameterSpec, ToolDefinition } from 'factorly';

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
  ];
}
