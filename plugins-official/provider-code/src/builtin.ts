import type { ToolDefinition, ToolSource } from 'factorly';

import { CODE_TOOL } from './api.js';

export const CODE_BUILTIN_MAX_OUTPUT = 50_000;

/**
 * `factorly.code`: the script is a parameter, written by an agent at call time. `spec.localOnly`
 * marks it for local interfaces only (stdio MCP and the CLI); HTTP-mode interfaces must not expose it.
 */
export const codeBuiltin: ToolSource = {
  name: 'factorly.code builtin',
  tools(context?: { settings: Record<string, unknown> }): ToolDefinition[] {
    // The config's `disable_builtins: true` or `disabled_builtins: [factorly.code]` turns it off (wrap does).
    const settings = context?.settings ?? {};
    const disabled = Array.isArray(settings.disabled_builtins) ? settings.disabled_builtins.map(String) : [];
    if (settings.disable_builtins === true || disabled.includes(CODE_TOOL)) return [];
    return [
      {
        name: CODE_TOOL,
        type: 'code',
        description:
          'Run a JavaScript sandbox script: async function run(params)\n' +
          'Inside, `await factorly.call(name, params)` calls another tool, `tools.search({ query })` finds tools and ' +
          '`tools.<namespace>.<tool>(args)` calls them. No imports, network, filesystem or timers.',
        hidden: false,
        maxOutput: CODE_BUILTIN_MAX_OUTPUT,
        parameters: [
          {
            name: 'code',
            type: 'text',
            required: true,
            description: 'The script; it must declare async function run(params).',
          },
          { name: 'params', type: 'json', required: false, description: 'A JSON object passed to run(params).' },
        ],
        spec: { builtin: CODE_TOOL, localOnly: true },
        // `factorly.code: {engine: ses, memory_mb: 128}` in the config picks how agents' scripts run.
        overlayKeys: ['engine', 'memory_mb'],
        source: { file: '<builtin>', line: 0 },
      },
    ];
  },
};
