import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigDeclarations } from '../../src/config/declared.js';
import { loadConfig } from '../../src/config/load.js';
import { findConfig } from '../../src/config/paths.js';
import { tempProject } from '../helpers/project.js';

const providers = { get: () => ({ keys: ['command', 'args'] }), keys: () => ['cli'] };

function declarations(): ConfigDeclarations {
  const declared = new ConfigDeclarations();
  declared.add('oauth', { key: 'oauth_providers', schema: { type: 'object' }, merge: 'by-name' });
  declared.add('other', { key: 'defaults', schema: { type: 'object' } });
  return declared;
}

function load(files: Record<string, string>) {
  const root = tempProject(files);
  return loadConfig(findConfig({ cwd: root, globalDir: join(root, 'g') }), providers, declarations());
}

describe('config files', () => {
  it('loads installed blueprints, merges named entries across files and lets the last file win otherwise', () => {
    const config = load({
      '.factorly/factorly.yaml': 'oauth_providers:\n  github: {client_id: a}\ndefaults: {engine: ses}\n',
      '.factorly/blueprints/google.yaml':
        'name: google\noauth_providers:\n  google: {client_id: b}\ndefaults: {engine: quickjs}\ntools:\n  google.x: {type: cli, command: echo}\n',
    });
    expect(config.files).toEqual(['.factorly/factorly.yaml', '.factorly/blueprints/google.yaml']);
    expect(config.settings.oauth_providers).toEqual({ github: { client_id: 'a' }, google: { client_id: 'b' } });
    expect(config.settings.defaults).toEqual({ engine: 'quickjs' });
    expect(config.tools.map((tool) => tool.name)).toEqual(['google.x']);
  });

  it('names both files of an entry given twice', () => {
    expect(() =>
      load({
        '.factorly/factorly.yaml': 'oauth_providers:\n  github: {client_id: a}\n',
        '.factorly/blueprints/gh.yaml':
          'name: gh\noauth_providers:\n  other: {client_id: c}\n  github: {client_id: b}\n',
      }),
    ).toThrow(
      'config: duplicate oauth_providers entry "github" (found again in .factorly/blueprints/gh.yaml:4; first in .factorly/factorly.yaml:2)',
    );
  });

  it('reads an alias as what its anchor holds, and refuses an alias bomb', () => {
    const config = load({
      '.factorly/factorly.yaml': `tools:
  a: {type: cli, command: echo, args: &args [one, two]}
  b: {type: cli, command: echo, args: *args}
`,
    });
    expect(config.tools.map((tool) => tool.spec.args)).toEqual([
      ['one', 'two'],
      ['one', 'two'],
    ]);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i += 1)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      );
    const root = tempProject({ '.factorly/factorly.yaml': `tools: {}\n` });
    mkdirSync(join(root, '.factorly', 'tools'), { recursive: true });
    writeFileSync(join(root, '.factorly', 'tools', 'bomb.yaml'), `${bomb.join('\n')}\n`);
    expect(() => loadConfig(findConfig({ cwd: root, globalDir: join(root, 'g') }), providers, declarations())).toThrow(
      /^config: \.factorly\/tools\/bomb\.yaml: Excessive alias count/,
    );
  });
});
