// ESLint for factorly: typescript-eslint's type-checked rules that catch real bugs (a promise nobody
// awaits, an await on a non-promise, a thrown string), not taste; layout is Prettier's job.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'plugins-official/interface-ui/static/**',
      'bench/results/**',
      // One-line re-exports of the kits (factorly/errors, factorly/sandbox-kit/…), outside every TS project.
      'kits/**',
      '**/*.mjs',
      '**/*.cjs',
      '**/*.js',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // `typeof import('…')` names a lazily loaded module's types without loading it at boot.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // A promise returned (not awaited) inside try escapes its catch.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // A variable a closure reads before its one assignment cannot be const.
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],

      // Off, each for a reason:
      // - the no-unsafe-* family and no-base-to-string: config and params arrive as unknown and are
      //   validated at the boundary (zod, parameter specs); String(value) there is deliberate.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      // - an async function without await keeps a contract's Promise signature (providers, engines).
      '@typescript-eslint/require-await': 'off',
      // - String(fn) hashes a fold's own code (projection stamps); nothing detaches methods as callbacks.
      '@typescript-eslint/unbound-method': 'off',
      // - sanitizers match control characters on purpose.
      'no-control-regex': 'off',
      // - `\/` inside a character class is harmless and reads as "a slash".
      'no-useless-escape': 'off',
      // - a literal union with string documents the known values of an open set.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // - non-null assertions the types already imply are noise, not bugs.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    // Small files and short functions: a file over 300 lines holds more than one responsibility, and
    // a function over 80 more than one step. Lines as Prettier leaves them, comments and blanks included.
    files: ['src/**/*.ts', 'plugins-official/*/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // A contract suite is one function holding its list of cases (split by topic into files instead).
    files: ['src/testing/contracts/**/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // A bare Error has no code: a script, a test or an MCP client cannot tell what failed.
    files: ['src/**/*.ts', 'plugins-official/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['NewExpression', 'CallExpression'].map((node) => ({
          selector: `${node}[callee.name='Error']`,
          message:
            'Throw a FactorlyError with the code for what failed (docs/errors.md), or internalError() for a broken invariant.',
        })),
      ],
    },
  },
);
