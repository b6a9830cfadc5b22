import { FactorlyError } from '@factorly/error-kit';
/** A terminal that can read without echo. */
export interface Terminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

export function processTerminal(): Terminal | undefined {
  return process.stdin.isTTY && process.stderr.isTTY ? { input: process.stdin, output: process.stderr } : undefined;
}

/**
 * Reads one line from a TTY with echo off (raw mode, nothing written back), so a password or a
 * secret value never appears on screen or in a terminal recording. Ctrl-C cancels.
 */
export function readHidden(terminal: Terminal, question: string): Promise<string> {
  const { input, output } = terminal;
  return new Promise((resolve, reject) => {
    const wasRaw = input.isRaw;
    input.setRawMode(true); // before the question, so nothing typed after it is ever echoed
    output.write(question);
    input.setEncoding('utf8');
    input.resume();
    let value = '';
    const finish = (error?: Error): void => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new FactorlyError('NO_ANSWER', 'cancelled'));
        if (char === '\u0004')
          return value === '' ? finish(new FactorlyError('NO_ANSWER', 'no input received')) : finish();
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else value += char;
      }
    };
    input.on('data', onData);
  });
}
