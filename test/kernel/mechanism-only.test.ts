import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/project.js';

/** The kernel and the layers that left it keep its rule: config, contracts, evidence and editing are mechanism too. */
const MECHANISM = ['kernel', 'config', 'contracts', 'evidence', 'editing'].map((folder) => join(REPO, 'src', folder));

/**
 * Names the kernel must not know (it is mechanism: src/kernel/README.md): official plugins and
 * their packages, built-in tools, tool types, interfaces, secret backends, script engines, the
 * config keys plugins own and the contracts between plugins. Each pattern says what it catches.
 */
const KNOWN_NAMES: [RegExp, string][] = [
  [
    // @factorly/error-kit, text-kit and process-kit are no plugins: the error family, the UTF-8 cut and
    // the environment builder (a witness's) the kernel and the plugins share.
    /@factorly\/(?!(error|text|process)-kit\b)|\b(provider-(cli|rest|mcp|code)|interface-(mcp|ui)|engine-(quickjs|ses)|sandbox-kit|net-guard)\b/,
    'an official plugin or package',
  ],
  [/\bplugin-(shadow|vault|output|builtins)\b/, 'an official plugin package'],
  [/factorly\.(code|fetch|shell|file)\b/, 'a built-in tool'],
  [/'(cli|rest|mcp|code|builtin)'/, 'a tool type or an interface as a string'],
  [/'ui'/, 'an interface as a string'],
  [/\bvault\b|'env'|\{\{env:/, 'a secret backend'],
  [/\b(quickjs|ses)\b/i, 'a script engine'],
  [
    /\b(rate_limit|max_calls|log_params|allow_urls|allow_patterns|allow_paths|compress|vault_backends|disable_builtins|disabled_builtins|memory_mb)\b/,
    'a config key a plugin owns',
  ],
  // `engine` of the log block (which log engine) is the kernel's own key; a tool's script engine is
  // `defaults.engine` or a named engine, caught above.
  [/'(filter|loop|scope|defaults)'|\bdefaults\.engine\b/, 'a config key a plugin owns'],
  [/\b(McpPassthrough|UiServices|ShadowPolicy|maxCallsOf|CodeRun)\b/, 'a contract between plugins'],
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the kernel is mechanism only', () => {
  it('names no concrete plugin, tool, backend, engine, plugin-owned config key or inter-plugin contract, in code or comments', () => {
    const found: string[] = [];
    for (const file of MECHANISM.flatMap(filesUnder)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const [pattern, what] of KNOWN_NAMES)
            if (pattern.test(line)) found.push(`${relative(REPO, file)}:${index + 1}: ${what}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('catches each kind of name it looks for', () => {
    const samples = [
      "import '@factorly/plugin-vault'",
      "tool.name === 'factorly.code'",
      "providers.get('code')",
      '{{vault:KEY}}',
      'engine: quickjs',
      'shadow.rate_limit',
      'McpPassthrough',
      "'defaults'",
    ];
    for (const sample of samples)
      expect(
        KNOWN_NAMES.some(([pattern]) => pattern.test(sample)),
        sample,
      ).toBe(true);
  });
});
