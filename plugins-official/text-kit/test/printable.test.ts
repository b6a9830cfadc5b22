import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeStderrLine } from '../src/printable.js';

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
