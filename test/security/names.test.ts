import { describe, expect, it, vi } from 'vitest';
import type { ToolCatalog } from '../../src/contracts/gateway.js';
import type { ToolDefinition, ToolProvider } from '../../src/contracts/tool.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { validateParams } from '../../src/config/params.js';
import { startTestKernel } from '../helpers/kernel.js';
import { toolDefinition } from '../helpers/tool-definition.js';

async function refusal(yaml: string, plugins = [] as ReturnType<typeof definePlugin>[]): Promise<string> {
  try {
    const { kernel } = await startTestKernel(yaml, plugins);
    await kernel.stop();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('bad names are refused where they come in', () => {
  it('tool names: empty, path separators, "..", control characters', async () => {
    const message = await refusal(`tools:
  "": {type: cli, command: echo}
  ../x: {type: cli, command: echo}
  a/b: {type: cli, command: echo}
  'c\\d': {type: cli, command: echo}
  "e\\x1b[31m": {type: cli, command: echo}
  "f\\u202eg": {type: cli, command: echo}
  fine.name_2-x: {type: cli, command: echo}
`);
    expect(message.split('\n')).toEqual([
      'config: tool name "" is empty (.factorly/factorly.yaml:2)',
      'config: tool name "../x" holds a path separator ("/" or "\\") (.factorly/factorly.yaml:3)',
      'config: tool name "a/b" holds a path separator ("/" or "\\") (.factorly/factorly.yaml:4)',
      'config: tool name "c\\\\d" holds a path separator ("/" or "\\") (.factorly/factorly.yaml:5)',
      'config: tool name "e\\u001b[31m" holds a control character (.factorly/factorly.yaml:6)',
      'config: tool name "f\u202eg" holds an invisible format character (U+202E) (.factorly/factorly.yaml:7)',
    ]);
    expect(await refusal('tools:\n  a..b: {type: cli, command: echo}\n')).toBe(
      'config: tool name "a..b" holds ".." (.factorly/factorly.yaml:2)',
    );
  });

  it('tool names: every invisible format character (Unicode Cf), each named by its code point', async () => {
    const formats = ['200B', '00AD', 'FEFF', '2060', '200D', '061C', 'E0041'];
    const yaml = formats.map((hex) => `  "a\\U${hex.padStart(8, '0')}b": {type: cli, command: echo}\n`).join('');
    const message = await refusal(`tools:\n${yaml}  plain: {type: cli, command: echo}\n`);
    expect(message.split('\n')).toEqual(
      formats.map(
        (hex, index) =>
          `config: tool name ${JSON.stringify(`a${String.fromCodePoint(parseInt(hex, 16))}b`)} holds an invisible format character (U+${hex}) (.factorly/factorly.yaml:${index + 2})`,
      ),
    );
  });

  it('names a plugin or an upstream server makes up are held to the same rule', async () => {
    const source = definePlugin({
      id: 'odd-source',
      apiVersion: '1',
      register(reg) {
        reg.registerInit({
          deps: { sources: reg.tokens.ToolSources },
          init({ sources }, ctx) {
            const tool: ToolDefinition = {
              name: '../../etc/passwd',
              type: 'cli',
              description: '',
              hidden: false,
              parameters: [],
              spec: { command: 'echo' },
              source: { file: '<odd>', line: 1 },
            };
            sources.add({ name: 'odd', tools: () => [tool] }, ctx.pluginId);
          },
        });
      },
    });
    expect(await refusal('tools: {}\n', [source])).toBe(
      'config: tool name "../../etc/passwd" holds a path separator ("/" or "\\") (from <odd>:1)',
    );
  });

  it('a provider listing its tools again (an upstream MCP server whose list changed) cannot bring a bad name in', async () => {
    let catalog: ToolCatalog | undefined;
    const listing = (name: string): ToolDefinition => toolDefinition({ name, type: 'listing' });
    const lister = definePlugin({
      id: 'lister',
      apiVersion: '1',
      register(reg) {
        reg.registerInit({
          deps: { providers: reg.tokens.ToolProviders, live: reg.tokens.ToolCatalog },
          init({ providers, live }, ctx) {
            catalog = live;
            const provider: ToolProvider = {
              type: 'listing',
              keys: [],
              expand: async () => [listing('up.first')],
              execute: async () => ({ output: '', exitCode: 0 }),
            };
            providers.add('listing', provider, ctx.pluginId);
          },
        });
      },
    });
    const { kernel } = await startTestKernel('tools:\n  up: {type: listing}\n', [lister]);
    try {
      // A bad name is left out and named on stderr (with the source), not handed back as a clash.
      const warned = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      const left = catalog!.replaceEntry('up', [listing('up.second'), listing('up.\u200bsecond'), listing('../up')]);
      const sessionLeft = catalog!.setSessionTools('s1', 'up', [listing('up.\u00adthird')]);
      const lines = warned.mock.calls.map(([text]) => String(text)).join('');
      warned.mockRestore();
      expect(left).toEqual([]);
      expect(sessionLeft).toEqual([]);
      expect(kernel.registry.catalogueOf().map((tool) => tool.name)).toEqual(['up.second']);
      expect(kernel.registry.catalogueOf('s1').map((tool) => tool.name)).toEqual([]);
      for (const code of ['U+200B', 'U+00AD']) expect(lines).toContain(`invisible format character (${code})`);
      expect(lines).toContain('"../up"');
      expect(lines).not.toMatch(/[\u200b\u00ad]/);
    } finally {
      await kernel.stop();
    }
  });

  it('enum entries must be scalars: a mapping is refused, not turned into "[object Object]"', async () => {
    const message = await refusal(`tools:
  pick:
    type: cli
    command: echo
    parameters:
      - {name: colour, type: enum, enum: [red, {green: 1}]}
      - {name: size, enum: [1, [2]]}
`);
    expect(message.split('\n')).toEqual([
      'config: tool "pick" parameter "colour": enum entry 2 is a mapping; entries must be strings, numbers or booleans (.factorly/factorly.yaml:6)',
      'config: tool "pick" parameter "size": enum entry 2 is a list; entries must be strings, numbers or booleans (.factorly/factorly.yaml:7)',
    ]);
  });

  it('parameters named like Object.prototype members are only ever own keys', () => {
    const specs = ['constructor', 'toString', '__proto__'].map((name) => ({
      name,
      type: 'json' as const,
      required: false,
    }));
    expect(validateParams(specs, {})).toEqual({ params: {}, changed: false, problems: [] });
    const given = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}') as Record<string, never>;
    const { params, problems } = validateParams(specs, given);
    expect(problems).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(params, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
