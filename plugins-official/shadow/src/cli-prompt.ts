import { FactorlyError } from '@factorly/error-kit';
import { createInterface } from 'node:readline';
import type { ConfirmAnswer, ConfirmChannel, ConfirmRequest } from 'factorly';

export interface PromptIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

const PREVIEW_CHARS = 300;

/**
 * Asks on the terminal of `factorly call`: shows the tool and a preview of its params, and reads a
 * line (`y…` approves). End of input or an abort (another channel answered, the wait timed out) is a
 * deny. Without a terminal it cannot ask, so it does not take the request and says why: another
 * channel (the web UI) can still answer, and when none can, the call is declined at once with the
 * reasons. Only requests made through the CLI are asked here: an MCP server's stdin is its transport.
 */
export class CliPromptChannel implements ConfirmChannel {
  readonly name = 'cli-prompt';
  readonly order = 10;

  constructor(private readonly io: PromptIo = { input: process.stdin, output: process.stderr }) {}

  accepts(request: ConfirmRequest): boolean {
    return request.iface === 'cli' && this.io.input.isTTY === true;
  }

  whyNot(request: ConfirmRequest): string | undefined {
    return request.iface === 'cli' && !this.io.input.isTTY ? 'no terminal to ask on (stdin is not a TTY)' : undefined;
  }

  async ask(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer> {
    if (!this.io.input.isTTY) throw new FactorlyError('NO_ANSWER', 'cli-prompt (no terminal to ask on)');
    // Already answered elsewhere (or given up): ask nobody.
    if (signal.aborted) return { approved: false, by: 'cli-prompt' };
    this.io.output.write(`⚠ Tool "${request.tool}" requires confirmation.\n  params: ${preview(request.params)}\n`);
    const answer = await readLine(this.io, 'Proceed? (y/n): ', signal);
    return { approved: answer !== undefined && /^y/i.test(answer.trim()), by: 'cli-prompt' };
  }
}

function readLine(io: PromptIo, question: string, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: io.input, output: io.output, terminal: false });
    let answered = false;
    const done = (line: string | undefined): void => {
      if (answered) return;
      answered = true;
      signal.removeEventListener('abort', abort);
      lines.close();
      resolve(line);
    };
    const abort = (): void => done(undefined);
    signal.addEventListener('abort', abort);
    lines.on('close', () => done(undefined));
    io.output.write(question);
    lines.once('line', (line) => done(line));
  });
}

function preview(params: unknown): string {
  const text = JSON.stringify(params);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}… (${text.length} chars)` : text;
}
