import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_CODES } from '@factorly/error-kit';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/project.js';

/** The rows of docs/errors.md's table of codes: code → exit code and JSON-RPC code. */
function documented(): Map<string, { exit: number; jsonRpc: number }> {
  const text = readFileSync(join(REPO, 'docs', 'errors.md'), 'utf8');
  const table = /<!-- error-codes:start -->([\s\S]*?)<!-- error-codes:end -->/.exec(text)?.[1] ?? '';
  const rows = new Map<string, { exit: number; jsonRpc: number }>();
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const code = /^`([A-Z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (code) rows.set(code, { exit: Number(cells[4]), jsonRpc: Number(cells[5]) });
  }
  return rows;
}

/** Every TypeScript source file of factorly and its official plugins (their `src/`). */
function sources(): string[] {
  const roots = [
    join(REPO, 'src'),
    ...readdirSync(join(REPO, 'plugins-official')).map((name) => join(REPO, 'plugins-official', name, 'src')),
  ];
  return roots.flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => join(root, file)),
  );
}

describe('the table of error codes', () => {
  it('lists every code with the exit code and JSON-RPC code it has, and no other', () => {
    const expected = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, info]) => [code, { ...info }]));
    expect(Object.fromEntries(documented())).toEqual(expected);
  });

  it('has no dead code: each one is raised somewhere in src or a plugin', () => {
    const table = join(REPO, 'plugins-official', 'error-kit', 'src', 'codes.ts');
    const text = sources()
      .filter((file) => file !== table)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const dead = Object.keys(ERROR_CODES).filter((code) => !text.includes(`'${code}'`));
    expect(dead, `codes nothing raises (in ${relative(REPO, table)})`).toEqual([]);
  });
});
