import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/project.js';

const config = ((await import(pathToFileURL(join(REPO, 'eslint.config.mjs')).href)) as { default: Linter.Config[] })
  .default;

/** factorly's own ESLint config, with only the rule under test (the type-checked ones need a project). */
function problems(code: string, filePath: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const rules = config.map((block) => ({
    ...block,
    languageOptions: { parser: tseslint.parser as Linter.Parser },
    rules: Object.fromEntries(Object.entries(block.rules ?? {}).filter(([name]) => name === 'no-restricted-syntax')),
  }));
  return linter.verify(code, rules, { filename: filePath }).map((m) => `${m.line}: ${m.message}`);
}

describe('no bare Error in source', () => {
  it('fails lint on new Error( and Error( in src and in a plugin, naming what to throw instead', () => {
    const planted = "throw new Error('x');\nthrow Error('y');\n";
    for (const file of ['src/kernel/planted.ts', 'plugins-official/vault/src/planted.ts']) {
      expect(problems(planted, file)).toEqual([
        '1: Throw a FactorlyError with the code for what failed (docs/errors.md), or internalError() for a broken invariant.',
        '2: Throw a FactorlyError with the code for what failed (docs/errors.md), or internalError() for a broken invariant.',
      ]);
    }
  });

  it('lets FactorlyError, internalError and tests through', () => {
    expect(
      problems("throw new FactorlyError('USAGE', 'x');\nthrow internalError('y');\n", 'src/cli/planted.ts'),
    ).toEqual([]);
    expect(problems("throw new Error('a failing fixture');\n", 'test/kernel/planted.test.ts')).toEqual([]);
    expect(problems("throw new Error('a failing fixture');\n", 'plugins-official/vault/test/planted.test.ts')).toEqual(
      [],
    );
  });
});
