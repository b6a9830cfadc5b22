import { afterEach, describe, expect, it, vi } from 'vitest';
import { printableLine, printableText, writeStderrLine } from '../src/printable.js';

afterEach(() => vi.restoreAllMocks());

function written(write: () => void): string {
  const chunks: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  write();
  vi.restoreAllMocks();
  return chunks.join('');
}

describe('writeStderrLine', () => {
  it('writes one line, its terminal sequences and bidirectional overrides shown as escapes', () => {
    expect(written(() => writeStderrLine('factorly: ', 'server "\x1b[2Jx\u202e" failed: \x07bell\n'))).toBe(
      'factorly: server "\\x1b[2Jx\\u202e" failed: \\x07bell\n',
    );
  });

  it('keeps line breaks of multi-line text, and escapes them when the line must stay one', () => {
    expect(written(() => writeStderrLine('warning: ', 'a\nb\r'))).toBe('warning: a\nb\\x0d\n');
    expect(written(() => writeStderrLine('factorly: ', 'a\nb\tc', { oneLine: true }))).toBe(
      'factorly: a\\x0ab\\x09c\n',
    );
  });
});

describe('invisible format characters', () => {
  it('shows every Unicode format character (Cf) as an escape, astral tags included, on a line and in text', () => {
    const spoofed = 'read\u200bfile \u00adx \ufeffy \u2060z \u{e0041}tag';
    const shown = 'read\\u200bfile \\xadx \\ufeffy \\u2060z \\u{e0041}tag';
    expect(printableLine(spoofed)).toBe(shown);
    expect(printableText(spoofed)).toBe(shown);
  });

  it('keeps the zero-width joiners that scripts and emoji sequences need', () => {
    const family = '\u{1f468}\u200d\u{1f469}\u200d\u{1f467} \u0915\u094d\u200c\u0937';
    expect(printableText(family)).toBe(family);
    expect(printableLine(family)).toBe(family);
  });
});
