import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { paragraphs } from '../../src/cli/help-text.js';
import { REPO } from '../helpers/project.js';

interface Described {
  summary?: string;
  description?: string;
}

type ManifestCommand = Described & {
  usage?: string | string[];
  flags: Record<string, Described>;
  args: Record<string, Described>;
};

/**
 * oclif re-wraps help text to the terminal's width, so a line break inside a sentence shows up as a
 * break in the middle of a line. Help text is written as paragraphs: a single newline may only start
 * a list item ("- ", "* ", "1. ") or continue one.
 */
function hardWraps(text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const [before, line] = [lines[i - 1], lines[i]];
    if (before.trim() === '' || line.trim() === '') continue;
    if (/^\s*([-*]|\d+\.) /.test(line)) continue;
    found.push(`…${before.slice(-30)}⏎${line.slice(0, 30)}…`);
  }
  return found;
}

describe('help text in oclif.manifest.json', () => {
  const manifest = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, ManifestCommand>;
  };

  it('has no line break inside a sentence (descriptions are paragraphs), and one-line summaries', () => {
    const problems: string[] = [];
    for (const [id, command] of Object.entries(manifest.commands)) {
      if (command.summary?.includes('\n')) problems.push(`${id} summary spans lines`);
      for (const wrap of hardWraps(command.description ?? '')) problems.push(`${id} description: ${wrap}`);
      const parts = [
        ...Object.entries(command.flags).map(([name, flag]) => [`--${name}`, flag] as const),
        ...Object.entries(command.args).map(([name, arg]) => [`<${name}>`, arg] as const),
      ];
      for (const [name, part] of parts) {
        if (part.summary?.includes('\n')) problems.push(`${id} ${name} summary spans lines`);
        for (const wrap of hardWraps(part.description ?? '')) problems.push(`${id} ${name}: ${wrap}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('catches a hard wrap, and lets lists and paragraphs through', () => {
    expect(hardWraps('Walks the chain and names\nthe first bad event.')).toHaveLength(1);
    expect(hardWraps('One paragraph.\n\nAnother one.\n\n- a list item\n- another')).toEqual([]);
  });
});

describe('paragraphs (help text written across source lines)', () => {
  it('joins the lines of a paragraph, keeps blank-line paragraphs and list items, and interpolates', () => {
    const size = 1000;
    const text = paragraphs`Walks the chain and
      names the first bad event.

      Formats, up to ${size} events:
      - jsonl: as stored,
        one per line.
      - otlp-json`;
    expect(text).toBe(
      'Walks the chain and names the first bad event.\n\nFormats, up to 1000 events:\n- jsonl: as stored, one per line.\n- otlp-json',
    );
  });
});
