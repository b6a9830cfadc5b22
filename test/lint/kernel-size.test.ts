import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, REPO } from '../helpers/project.js';

/** The kernel stays small (src/kernel/README.md): config, contracts, evidence and editing live beside it. */
const KERNEL_LINE_LIMIT = 3500;

/** Lines of every TypeScript file under `dir`, the way `wc -l` counts them. */
function typescriptLines(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((total, entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return total + typescriptLines(path);
    if (!entry.name.endsWith('.ts')) return total;
    return total + (readFileSync(path, 'utf8').match(/\n/g)?.length ?? 0);
  }, 0);
}

describe('the kernel stays small', () => {
  it(`src/kernel holds at most ${KERNEL_LINE_LIMIT} lines of TypeScript`, () => {
    expect(typescriptLines(join(REPO, 'src', 'kernel'))).toBeLessThanOrEqual(KERNEL_LINE_LIMIT);
  });

  it('counts every line of every .ts file, in sub-folders too, and nothing else', () => {
    const root = makeProject({ 'a.ts': 'one\ntwo\n', 'notes.md': 'x\ny\nz\n' });
    mkdirSync(join(root, 'deep'));
    writeFileSync(join(root, 'deep', 'b.ts'), 'three\n');
    try {
      expect(typescriptLines(root)).toBe(3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
