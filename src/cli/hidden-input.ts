import { FactorlyError } from '../base/errors.js';
import { readStdinWhole } from './stdin.js';

/**
 * A secret value typed or piped in, never from argv (shell history, `ps`): on a terminal it is read
 * with echo off; otherwise stdin is read whole and one trailing newline dropped.
 */
export async function readSecretInput(question: string): Promise<string> {
  const value = process.stdin.isTTY ? await readHiddenLine(question) : (await readStdinWhole()).replace(/\r?\n$/, '');
  if (value === '')
    throw new FactorlyError(
      'USAGE',
      'no value given: pass it as an argument, pipe it on stdin, or type it at the prompt',
    );
  return value;
}

/** One line from the terminal in raw mode, nothing echoed, possibly empty (a key a person skips); Ctrl-C cancels. */
export function readHiddenLine(question: string): Promise<string> {
  const input = process.stdin;
  return new Promise((resolve, reject) => {
    input.setRawMode(true); // before the question, so nothing typed after it is ever echoed
    process.stderr.write(question);
    input.setEncoding('utf8');
    input.resume();
    let value = '';
    const finish = (error?: Error): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new FactorlyError('USAGE', 'cancelled'));
        value = char === '\u007f' || char === '\b' ? [...value].slice(0, -1).join('') : value + char;
      }
    };
    input.on('data', onData);
  });
}
