import { describe, expect, it } from 'vitest';
import { KernelTokens } from '../../src/kernel/tokens.js';
import { REPO, tempProject } from '../helpers/project.js';
import { brokenLinks, filesCiting, markdownFiles, missingFromTable, pluginsWithoutReadme } from './doc-checks.js';

/**
 * The docs drift when the code moves: a plugin added without a README, a kernel token the kernel's
 * README or the extension-point table does not name, a link to a file or heading that was renamed,
 * a comment citing a document the repository does not hold. Each check runs on the repository, and
 * on a small tree with the violation planted, so a check that can no longer fail is noticed too.
 */

const TOKENS = Object.keys(KernelTokens);
const ARCHITECTURE = 'docs/architecture.md';
const KERNEL_README = 'src/kernel/README.md';
const EXTENSION_TABLE = 'Extension points';
const TOKEN_TABLE = 'Tokens';
/** Spelled in two parts so this file does not cite it itself. */
const OUTSIDE_DOCUMENT = ['DESIGN', 'md'].join('.');
const CODE_DIRS = ['src', 'plugins-official', 'test', 'bench', 'scripts'];

describe('the docs in the repository', () => {
  it('has a README in every official plugin package', () => {
    expect(pluginsWithoutReadme(REPO)).toEqual([]);
  });

  it('names every kernel token in the kernel README and in the extension-point table', () => {
    expect(TOKENS.length).toBeGreaterThan(0);
    expect([
      ...missingFromTable(REPO, KERNEL_README, TOKEN_TABLE, TOKENS),
      ...missingFromTable(REPO, ARCHITECTURE, EXTENSION_TABLE, TOKENS),
    ]).toEqual([]);
  });

  it('has no relative link to a missing file or heading', () => {
    const files = markdownFiles(REPO);
    expect(files).toContain(ARCHITECTURE);
    expect(files).toContain(KERNEL_README);
    expect(brokenLinks(REPO, files)).toEqual([]);
  });

  it('cites no document outside the repository in code or tests', () => {
    expect(filesCiting(REPO, CODE_DIRS, OUTSIDE_DOCUMENT)).toEqual([]);
  });
});

describe('each docs check fails on a planted violation', () => {
  it('names a plugin package without a README, and not one with a README or without package.json', () => {
    const root = tempProject({
      'plugins-official/with/package.json': '{}',
      'plugins-official/with/README.md': '# with\n',
      'plugins-official/without/package.json': '{}',
      'plugins-official/not-a-package/notes.txt': '',
    });
    expect(pluginsWithoutReadme(root)).toEqual(['plugins-official/without']);
  });

  it('names a token with no row in the section, also when it appears elsewhere in the file', () => {
    const root = tempProject({
      'doc.md': [
        '# Doc',
        '## Tokens',
        '| Token | What |',
        '| ----- | ---- |',
        '| `EventLog` | the log |',
        '## Later',
        '| `EventBus` | in another section |',
        'ToolCatalog named in prose',
      ].join('\n'),
    });
    expect(missingFromTable(root, 'doc.md', 'Tokens', ['EventLog', 'EventBus', 'ToolCatalog'])).toEqual([
      'doc.md (Tokens): no row for EventBus',
      'doc.md (Tokens): no row for ToolCatalog',
    ]);
  });

  it('names a link to a missing file or anchor, and ignores URLs and links inside code', () => {
    const root = tempProject({
      'README.md': [
        '# Top',
        '## The `factorly` command',
        '[ok](docs/a.md#a-heading) [ok](#the-factorly-command) [ok](docs) [web](https://example.com/x)',
        '[gone](docs/missing.md) [bad anchor](docs/a.md#no-such) [self](#nowhere)',
        '`[in code](nowhere.md)`',
        '```',
        '[in a fence](nowhere.md)',
        '```',
      ].join('\n'),
      'docs/a.md': '# A heading\n',
    });
    expect(brokenLinks(root, markdownFiles(root))).toEqual([
      'README.md: docs/missing.md (no such file)',
      'README.md: docs/a.md#no-such (no heading with that anchor)',
      'README.md: #nowhere (no heading with that anchor)',
    ]);
  });

  it('names a file that cites the outside document', () => {
    const root = tempProject({
      'src/kernel/x.ts': `/** The pipeline of ${OUTSIDE_DOCUMENT} §4. */\n`,
      'src/kernel/y.ts': '/** The pipeline (docs/architecture.md). */\n',
      'test/z.test.ts': `// see ${OUTSIDE_DOCUMENT}\n`,
    });
    expect(filesCiting(root, CODE_DIRS, OUTSIDE_DOCUMENT)).toEqual(['src/kernel/x.ts', 'test/z.test.ts']);
  });
});
