import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, REPO } from '../helpers/project.js';

const DEPCRUISE = join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(REPO, '.dependency-cruiser.mjs');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/**
 * A small tree laid out like factorly's, with one break of every layering rule and, next to each,
 * the import the rule allows. Files hold only imports: the check reads nothing else.
 */
const PLANTED: Record<string, string> = {
  'tsconfig.lint.json': JSON.stringify({
    compilerOptions: {
      paths: { factorly: ['./src/plugins/index.ts'], 'factorly/testing': ['./src/testing/index.ts'] },
    },
  }),
  'src/base/errors.ts': 'export const E = 1;\n',
  'src/base/token.ts': "import { K } from '../kernel/kernel.js';\nexport const T = K;\n",
  'src/kernel/kernel.ts':
    "import { E } from './base/errors.js';\nimport { P } from '../../plugins-official/shadow/src/plugin.js';\nexport const K = E + P;\n",
  'src/events/log.ts':
    "import { E } from '../base/errors.js';\nimport { K } from '../kernel/kernel.js';\nexport const L = E + K;\n",
  // A cycle made of type-only imports is still a cycle.
  'src/events/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
  'src/events/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
  'src/plugins/index.ts': 'export const SDK = 1;\n',
  // The layers above events, bottom up: config → contracts → kernel → evidence and editing.
  'src/config/load.ts':
    "import { E } from '../base/errors.js';\nimport { C } from '../contracts/tool.js';\nexport const L = E + C;\n",
  'src/contracts/tool.ts':
    "import { L } from '../config/paths.js';\nimport { G } from '../kernel/gate.js';\nexport const C = L + G;\n",
  'src/config/paths.ts': 'export const L = 1;\n',
  'src/kernel/gate.ts':
    "import { Z } from '../contracts/extensions.js';\nimport { S } from '../evidence/sign.js';\nimport { X } from '../editing/edit.js';\nexport const G = Z + S + X;\n",
  'src/contracts/extensions.ts': 'export const Z = 1;\n',
  // The composition root alone may wire evidence in; editing stays above it too.
  'src/kernel/kernel-core.ts':
    "import { S } from '../evidence/sign.js';\nimport { X } from '../editing/edit.js';\nexport const R = S + X;\n",
  'src/evidence/sign.ts':
    "import { Z } from '../contracts/extensions.js';\nimport { U } from '../cli/run.js';\nexport const S = Z + U;\n",
  'src/editing/edit.ts': "import { P } from '../../plugins-official/shadow/src/plugin.js';\nexport const X = P;\n",
  'src/cli/run.ts': 'export const U = 1;\n',
  'src/testing/index.ts': 'export const KIT = 1;\n',
  // factorly's own tests: its own files by path, a plugin by package name only.
  'test/helpers/project.ts': 'export const H = 1;\n',
  'test/kernel/kernel.test.ts':
    "import { K } from '../../src/kernel/kernel.js';\nimport { P } from '@factorly/plugin-shadow';\nimport { P as Q } from '../../plugins-official/shadow/src/plugin.js';\nexport const T = K + P + Q;\n",
  'plugins-official/shadow/package.json': JSON.stringify({ name: '@factorly/plugin-shadow', main: './src/plugin.ts' }),
  'plugins-official/shadow/src/plugin.ts':
    "import type {} from 'factorly';\nimport { E } from '../../../src/base/errors.js';\nexport const P = E;\n",
  'plugins-official/output/src/plugin.ts':
    "import { P } from '@factorly/plugin-shadow';\nimport { Q } from '../../shadow/src/plugin.js';\nexport const O = P + Q;\n",
  'plugins-official/output/test/output.test.ts':
    "import { P } from '@factorly/plugin-shadow';\nimport { P as Q } from '../../shadow/src/plugin.js';\nimport { O } from '../src/plugin.js';\nexport const T = O + P + Q;\n",
  // A plugin's tests: factorly through its exports and the shared test harness, never its internals.
  'plugins-official/output/test/kernel.test.ts':
    "import { KIT } from 'factorly/testing';\nimport { H } from '../../../test/helpers/project.js';\nimport { K } from '../../../src/kernel/kernel.js';\nexport const T = KIT + H + K;\n",
};

/** The check as `lint:deps` runs it (its exit status and what it prints) and its violations, read from its JSON report. */
function cruise(root: string): { status: number | null; printed: string; violations: Violation[] } {
  const args = [DEPCRUISE, 'src', 'test', 'plugins-official', '--config', CONFIG];
  const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const report = spawnSync(process.execPath, [...args, '--output-type', 'json'], { cwd: root, encoding: 'utf8' });
  if (report.stdout === '') throw new Error(`dependency-cruiser printed no report: ${report.stderr}`);
  const result = JSON.parse(report.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  const violations = result.summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to }));
  return { status: run.status, printed: `${run.stdout}${run.stderr}`, violations };
}

describe('the layering check (npm run lint:deps)', () => {
  let root: string;
  let planted: ReturnType<typeof cruise>;

  beforeAll(() => {
    root = makeProject(PLANTED);
    // The workspace link npm makes: a package imported by its name resolves to its own folder.
    mkdirSync(join(root, 'node_modules', '@factorly'), { recursive: true });
    symlinkSync(join(root, 'plugins-official', 'shadow'), join(root, 'node_modules', '@factorly', 'plugin-shadow'));
    planted = cruise(root);
  }, 120_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const namedBy = (rule: string): Violation[] => planted.violations.filter((violation) => violation.rule === rule);

  it('fails on a planted tree, naming each broken rule and nothing the rules allow', () => {
    const rules = [
      'events-stay-below',
      'base-stays-at-bottom',
      'config-below-kernel',
      'contracts-below-kernel',
      'kernel-below-evidence',
      'kernel-below-editing-and-cli',
      'evidence-and-editing-below-cli',
      'kernel-no-plugin',
      'plugin-sdk-only',
      'plugin-no-other-plugin-internals',
      'test-public-exports-only',
      'plugin-test-public-exports-only',
      'no-circular',
    ];
    expect(planted.status).not.toBe(0);
    for (const rule of rules) expect(planted.printed).toContain(`error ${rule}:`);
    expect(new Set(planted.violations.map((violation) => violation.rule))).toEqual(new Set(rules));
  });

  it('events import nothing of the kernel but its base', () => {
    expect(namedBy('events-stay-below')).toEqual([
      { rule: 'events-stay-below', from: 'src/events/log.ts', to: 'src/kernel/kernel.ts' },
    ]);
  });

  it('the base imports nothing above it', () => {
    expect(namedBy('base-stays-at-bottom')).toEqual([
      { rule: 'base-stays-at-bottom', from: 'src/base/token.ts', to: 'src/kernel/kernel.ts' },
    ]);
  });

  it('config imports nothing above it: not even the contracts', () => {
    expect(namedBy('config-below-kernel')).toEqual([
      { rule: 'config-below-kernel', from: 'src/config/load.ts', to: 'src/contracts/tool.ts' },
    ]);
  });

  it('the contracts import config, never the kernel', () => {
    expect(namedBy('contracts-below-kernel')).toEqual([
      { rule: 'contracts-below-kernel', from: 'src/contracts/tool.ts', to: 'src/kernel/gate.ts' },
    ]);
  });

  it('only the composition root imports evidence; no kernel file imports editing or the CLI', () => {
    expect(namedBy('kernel-below-evidence')).toEqual([
      { rule: 'kernel-below-evidence', from: 'src/kernel/gate.ts', to: 'src/evidence/sign.ts' },
    ]);
    expect(
      namedBy('kernel-below-editing-and-cli')
        .map(({ from, to }) => `${from} → ${to}`)
        .sort(),
    ).toEqual(['src/kernel/gate.ts → src/editing/edit.ts', 'src/kernel/kernel-core.ts → src/editing/edit.ts']);
  });

  it('evidence and editing import neither the CLI nor a plugin', () => {
    expect(
      namedBy('evidence-and-editing-below-cli')
        .map(({ from, to }) => `${from} → ${to}`)
        .sort(),
    ).toEqual(['src/editing/edit.ts → plugins-official/shadow/src/plugin.ts', 'src/evidence/sign.ts → src/cli/run.ts']);
  });

  it('the kernel imports no plugin', () => {
    expect(namedBy('kernel-no-plugin')).toEqual([
      { rule: 'kernel-no-plugin', from: 'src/kernel/kernel.ts', to: 'plugins-official/shadow/src/plugin.ts' },
    ]);
  });

  it('a plugin reaches factorly only through the SDK', () => {
    expect(namedBy('plugin-sdk-only')).toEqual([
      { rule: 'plugin-sdk-only', from: 'plugins-official/shadow/src/plugin.ts', to: 'src/base/errors.ts' },
    ]);
  });

  it("a plugin's code and tests import another plugin by package name, never by a path into it", () => {
    expect(
      namedBy('plugin-no-other-plugin-internals')
        .map(({ from, to }) => `${from} → ${to}`)
        .sort(),
    ).toEqual([
      'plugins-official/output/src/plugin.ts → plugins-official/shadow/src/plugin.ts',
      'plugins-official/output/test/output.test.ts → plugins-official/shadow/src/plugin.ts',
    ]);
  });

  it("factorly's tests reach a plugin by its package name, never by a path into its files", () => {
    expect(namedBy('test-public-exports-only')).toEqual([
      {
        rule: 'test-public-exports-only',
        from: 'test/kernel/kernel.test.ts',
        to: 'plugins-official/shadow/src/plugin.ts',
      },
    ]);
  });

  it("a plugin's tests reach factorly through its exports and the shared test harness, never its internals", () => {
    expect(namedBy('plugin-test-public-exports-only')).toEqual([
      {
        rule: 'plugin-test-public-exports-only',
        from: 'plugins-official/output/test/kernel.test.ts',
        to: 'src/kernel/kernel.ts',
      },
    ]);
  });

  it('an import cycle fails, type-only imports included', () => {
    const cycles = namedBy('no-circular');
    expect(cycles).toHaveLength(1);
    expect([cycles[0].from, cycles[0].to].sort()).toEqual(['src/events/a.ts', 'src/events/b.ts']);
  });

  it('passes on the real tree', () => {
    const run = spawnSync('npm', ['run', '--silent', 'lint:deps'], { cwd: REPO, encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  }, 120_000);
});
