import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { findConfig } from '../../src/config/paths.js';
import { KeyedRegistry } from '../../src/kernel/registries.js';
import type { ToolProvider } from '../../src/contracts/tool.js';
import { CliProvider } from '@factorly/plugin-provider-cli';
import { tempProject } from '../helpers/project.js';

function providers(): KeyedRegistry<ToolProvider> {
  const registry = new KeyedRegistry<ToolProvider>('tool type');
  registry.add('cli', new CliProvider(), 'provider-cli');
  return registry;
}

function load(files: Record<string, string>) {
  const root = tempProject(files);
  return loadConfig(findConfig({ cwd: root, globalDir: `${root}/no-global` }), providers());
}

function errorOf(files: Record<string, string>): string {
  try {
    load(files);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

const MAIN = '.factorly/factorly.yaml';

describe('config loading', () => {
  it('merges the main file, loose files and tools/ in sorted order', () => {
    const config = load({
      [MAIN]: 'tools:\n  a: {type: cli, command: echo}\n',
      '.factorly/z.yaml': 'c: {type: cli, command: echo}\n',
      '.factorly/tools/b.yaml': 'tools:\n  b: {type: cli, command: echo}\n',
    });
    expect(config.tools.map((t) => t.name)).toEqual(['a', 'c', 'b']);
    expect(config.files).toEqual([MAIN, '.factorly/z.yaml', '.factorly/tools/b.yaml']);
  });

  it('finds ./factorly.yaml before .factorly/ and keeps state in .factorly/', () => {
    const root = tempProject({ 'factorly.yaml': 'tools: {}\n', [MAIN]: 'tools: {}\n' });
    const paths = findConfig({ cwd: root, globalDir: `${root}/none` });
    expect(paths.mainFile).toBe(`${root}/factorly.yaml`);
    expect(paths.logPath).toBe(`${root}/.factorly/events.lmdb`);
  });

  it('says how to start when there is no config at all', () => {
    const root = tempProject();
    expect(() => findConfig({ cwd: root, globalDir: `${root}/none` })).toThrow(
      "config file not found: .factorly/factorly.yaml (run 'factorly init' to create one)",
    );
  });

  it('reports bad YAML with file, line and column', () => {
    expect(errorOf({ [MAIN]: 'tools:\n  a: {type: cli\n' })).toMatch(/^config: \.factorly\/factorly\.yaml:3:1: /);
  });

  it('reports an unknown tool type with its line and the installed types', () => {
    expect(errorOf({ [MAIN]: 'tools:\n  ok: {type: cli, command: echo}\n  web:\n    type: clii\n' })).toBe(
      'config: tool "web" has unknown type "clii"; did you mean "cli"? (installed types: cli) (.factorly/factorly.yaml:4)',
    );
  });

  it('reports a duplicate tool with both places', () => {
    expect(
      errorOf({
        '.factorly/tools/a.yaml': 'x: {type: cli, command: echo}\n',
        '.factorly/tools/b.yaml': '\n\nx: {type: cli, command: echo}\n',
      }),
    ).toBe('config: duplicate tool "x" (found again in .factorly/tools/b.yaml:3; first in .factorly/tools/a.yaml:1)');
  });

  it('reports a missing type, an unknown key and a cli tool without command', () => {
    const message = errorOf({ [MAIN]: 'tools:\n  a: {description: x}\n  b:\n    type: cli\n    comand: ls\n' });
    expect(message.split('\n')).toEqual([
      'config: tool "a" missing type (.factorly/factorly.yaml:2)',
      'config: tool "b" has unknown key "comand"; did you mean "command"? (.factorly/factorly.yaml:5)',
      'config: tool "b" is a cli tool but has no command (.factorly/factorly.yaml:3)',
    ]);
  });

  it('reports a bad parameter type on the parameter line', () => {
    const yaml =
      'tools:\n  a:\n    type: cli\n    command: echo\n    parameters:\n      - name: n\n        type: int\n';
    expect(errorOf({ [MAIN]: yaml })).toBe(
      'config: tool "a" parameter "n" has unknown type "int" (valid: string, text, integer, number, boolean, json, enum) (.factorly/factorly.yaml:7)',
    );
  });

  it('refuses enum without a list, a default of the wrong type, a bad pattern and a bad timeout', () => {
    const yaml = [
      'tools:',
      '  a:',
      '    type: cli',
      '    command: echo',
      '    timeout: soon',
      '    parameters:',
      '      - {name: e, type: enum}',
      '      - {name: n, type: integer, default: many}',
      '      - {name: p, pattern: "("}',
    ].join('\n');
    const lines = errorOf({ [MAIN]: yaml }).split('\n');
    expect(lines[0]).toBe(
      'config: tool "a" has an invalid timeout "soon" (use a duration such as "30s", "2m" or "500ms") (.factorly/factorly.yaml:5)',
    );
    expect(lines[1]).toBe(
      'config: tool "a" parameter "e" is type=enum but has no enum list (.factorly/factorly.yaml:7)',
    );
    expect(lines[2]).toBe(
      'config: tool "a" parameter "n" has an invalid default: expected integer, got "many" (.factorly/factorly.yaml:8)',
    );
    expect(lines[3]).toMatch(
      /^config: tool "a" parameter "p": pattern is not a valid regular expression .*\(\.factorly\/factorly\.yaml:9\)$/,
    );
  });

  it('reads hydrate_vault_refs as the list of references a parameter may resolve', () => {
    const yaml =
      'tools:\n  a:\n    type: cli\n    command: echo\n    parameters:\n      - {name: s, hydrate_vault_refs: ["{{vault:A}}", "{{op: Private/B }}"]}\n      - {name: t, hydrate_vault_refs: false}\n';
    const [s, t] = load({ [MAIN]: yaml }).tools[0].parameters;
    expect(s.hydrateVaultRefs).toEqual(['vault:A', 'op:Private/B']);
    expect(t.hydrateVaultRefs).toBeUndefined();
  });

  it('refuses hydrate_vault_refs: true (any secret an agent names), naming the line and the form to write', () => {
    const yaml =
      'tools:\n  a:\n    type: cli\n    command: echo\n    parameters:\n      - name: s\n        hydrate_vault_refs: true\n';
    expect(errorOf({ [MAIN]: yaml })).toBe(
      'config: tool "a" parameter "s": hydrate_vault_refs: true would let an agent read any secret it names; list the references it may resolve instead, e.g. hydrate_vault_refs: ["{{backend:KEY}}"] (.factorly/factorly.yaml:7)',
    );
  });

  it('refuses a hydrate_vault_refs entry that is not one whole reference, and an empty list', () => {
    const yaml = [
      'tools:',
      '  a:',
      '    type: cli',
      '    command: echo',
      '    parameters:',
      '      - {name: s, hydrate_vault_refs: ["{{vault:A}}", "vault:B"]}',
      '      - {name: t, hydrate_vault_refs: ["{{vault:C|fallback}}"]}',
      '      - {name: u, hydrate_vault_refs: []}',
      '      - {name: v, hydrate_vault_refs: "{{vault:D}}"}',
    ].join('\n');
    expect(errorOf({ [MAIN]: yaml }).split('\n')).toEqual([
      'config: tool "a" parameter "s": hydrate_vault_refs entry 2 ("vault:B") is not one secret reference; write each in full, without a default, e.g. "{{backend:KEY}}" (.factorly/factorly.yaml:6)',
      'config: tool "a" parameter "t": hydrate_vault_refs entry 1 ("{{vault:C|fallback}}") is not one secret reference; write each in full, without a default, e.g. "{{backend:KEY}}" (.factorly/factorly.yaml:7)',
      'config: tool "a" parameter "u": hydrate_vault_refs must list at least one reference, e.g. ["{{backend:KEY}}"] (.factorly/factorly.yaml:8)',
      'config: tool "a" parameter "v": hydrate_vault_refs must be a list of references, e.g. ["{{backend:KEY}}"] (.factorly/factorly.yaml:9)',
    ]);
  });

  it('refuses a template placeholder that is not a declared parameter', () => {
    const yaml =
      'tools:\n  a:\n    type: cli\n    command: echo\n    args: ["{{nmae}}"]\n    parameters: [{name: name}]\n';
    expect(errorOf({ [MAIN]: yaml })).toBe(
      'config: tool "a" uses {{nmae}}, which is not one of its parameters (.factorly/factorly.yaml:2)',
    );
  });

  it('infers required string params from the templates when none are declared', () => {
    const config = load({
      [MAIN]: 'tools:\n  f: {type: cli, command: curl, args: ["-s", "{{url}}"], stdin: "{{body}}"}\n',
    });
    expect(config.tools[0].parameters).toEqual([
      { name: 'url', type: 'string', required: true },
      { name: 'body', type: 'string', required: true },
    ]);
  });

  it('refuses an unknown top-level key in the main file', () => {
    expect(errorOf({ [MAIN]: 'toolz:\n  a: {type: cli, command: echo}\n' })).toBe(
      'config: unknown top-level key "toolz"; did you mean "tools"? (.factorly/factorly.yaml:1)',
    );
  });
});
