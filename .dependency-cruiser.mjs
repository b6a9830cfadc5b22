// The layering factorly keeps (docs: README "Checks"). `npm run lint:deps` runs it; test/lint/layering.test.ts
// plants a break of every rule to prove each one bites. Type-only imports count: a type cycle is still a
// cycle for the next reader, and a type import across a layer still couples the layers.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: move the shared types to the module that owns them.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'events-stay-below',
      severity: 'error',
      comment: 'src/events holds facts only: it imports nothing of the kernel, the plugin host, the CLI or a plugin.',
      from: { path: '^src/events/' },
      // src/base (errors, tokens, atomic writes), below every layer, is what it may import.
      to: { path: '^(src/(config|contracts|kernel|evidence|editing|plugins|cli|commands|testing)/|plugins-official/)' },
    },
    {
      name: 'config-below-kernel',
      severity: 'error',
      comment:
        'src/config finds, reads and validates config: it imports src/base and src/events only, never the contracts, the kernel or anything above.',
      from: { path: '^src/config/' },
      to: {
        path: '^(src/(contracts|kernel|evidence|editing|plugins|cli|commands|testing)/|plugins-official/)',
        pathNot: '^plugins-official/(error|text)-kit/',
      },
    },
    {
      name: 'contracts-below-kernel',
      severity: 'error',
      comment:
        'src/contracts holds the extension-point interfaces: it imports src/base, src/events and src/config only, never the kernel or anything above.',
      from: { path: '^src/contracts/' },
      to: {
        path: '^(src/(kernel|evidence|editing|plugins|cli|commands|testing)/|plugins-official/)',
        pathNot: '^plugins-official/(error|text)-kit/',
      },
    },
    {
      name: 'kernel-below-evidence',
      severity: 'error',
      comment:
        'src/evidence sits above the kernel: only the composition root (kernel.ts, kernel-core.ts, kernel-api.ts, kernel-log.ts) wires the checkpointer in.',
      from: { path: '^src/kernel/', pathNot: '^src/kernel/kernel(-core|-api|-log)?\\.ts$' },
      to: { path: '^src/evidence/' },
    },
    {
      name: 'kernel-below-editing-and-cli',
      severity: 'error',
      comment:
        'src/editing and the CLI are above the kernel: no kernel file imports them, the composition root included.',
      from: { path: '^src/kernel/' },
      to: { path: '^src/(editing|cli|commands|testing)/' },
    },
    {
      name: 'evidence-and-editing-below-cli',
      severity: 'error',
      comment:
        'src/evidence and src/editing are used by the CLI and the plugin host; they import neither the CLI nor a plugin.',
      from: { path: '^src/(evidence|editing)/' },
      to: {
        path: '^(src/(cli|commands|testing)/|plugins-official/)',
        // The kits are libraries (the witness's environment comes from process-kit's builder).
        pathNot: '^plugins-official/(error|text|process)-kit/',
      },
    },
    {
      name: 'base-stays-at-bottom',
      severity: 'error',
      comment: 'src/base is imported by every layer (events included), so it imports none of them.',
      from: { path: '^src/base/' },
      // The kits factorly shares with its plugins (the error family, the UTF-8 cut) lie below base itself.
      to: { path: '^(src/|plugins-official/)', pathNot: '^(src/base/|plugins-official/(error|text)-kit/)' },
    },
    {
      name: 'kernel-no-plugin',
      severity: 'error',
      comment: 'The kernel is mechanism: it reaches plugins only through the host, never a plugin package.',
      from: { path: '^src/kernel/' },
      // The kits are libraries, not plugins (process-kit builds the environments of the processes factorly starts).
      to: { path: '^plugins-official/', pathNot: '^plugins-official/(error|text|process)-kit/' },
    },
    {
      name: 'plugin-sdk-only',
      severity: 'error',
      comment: 'A plugin reaches factorly only through the SDK entry points (`factorly`, `factorly/events`).',
      from: { path: '^plugins-official/[^/]+/src/' },
      to: { path: '^(src|test|bench|scripts)/', pathNot: '^src/(plugins|events)/index\\.ts$' },
    },
    {
      name: 'plugin-no-other-plugin-internals',
      severity: 'error',
      comment: 'A plugin imports another workspace package by its package name, never a path into its files.',
      from: { path: '^plugins-official/([^/]+)/(src|test)/' },
      to: {
        path: '^plugins-official/',
        pathNot: '^plugins-official/$1/',
        // A relative path or a path alias is 'local'; an import by package name is not.
        dependencyTypes: ['local'],
      },
    },
    {
      name: 'test-public-exports-only',
      severity: 'error',
      comment:
        "factorly's own tests reach a workspace package by its package name (its exports), never a path into its files: a test of what a package does not export belongs in that package.",
      from: { path: '^test/' },
      // A workspace package imported by name resolves into it as 'aliased-workspace'; a path does not.
      to: { path: '^plugins-official/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased-workspace'] },
    },
    {
      name: 'plugin-test-public-exports-only',
      severity: 'error',
      comment:
        "A plugin's tests reach factorly through its exports (`factorly`, `factorly/events`, `factorly/testing`), as a plugin project outside the repository does, and the repository's shared test harness (test/helpers).",
      from: { path: '^plugins-official/[^/]+/test/' },
      to: {
        path: '^(src|test|bench|scripts)/',
        pathNot: ['^src/(plugins|events|testing)/index\\.ts$', '^test/helpers/'],
      },
    },
  ],
  options: {
    doNotFollow: { path: ['(^|/)node_modules/', '(^|/)dist/'] },
    exclude: { path: ['(^|/)node_modules/'] },
    // Count `import type` too, as TypeScript writes it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.lint.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.d.ts'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
