import { FactorlyError } from '@factorly/error-kit';
import { createInterface } from 'node:readline';
import type { ConfirmPrompt, PersonAnswer, PersonChannel, PersonRequest, QuestionPrompt } from 'factorly';

export interface PromptIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

const PREVIEW_CHARS = 300;
/** Wrong answers to a question a person may type before the prompt gives up (the race then counts it as failed). */
const TRIES = 3;

/**
 * Asks on the terminal of `factorly call`. A confirmation shows the tool and a preview of its params
 * and reads a line (`y…` approves, `a…` approves with the standing choice offered, if any); a
 * question shows itself and reads the answer, checked as the question's type wants (asked again
 * when it does not fit; an empty line takes the default). End of input declines a confirmation and
 * dismisses a question; an abort (another channel answered, the wait timed out) lets go. Without a
 * terminal it cannot ask, so it does not take the request and says why: another channel (the web UI)
 * can still answer, and when none can, the request ends at once with the reasons. Only requests made
 * through the CLI are asked here: an MCP server's stdin is its transport.
 */
export class CliPromptChannel implements PersonChannel {
  readonly name = 'cli-prompt';
  readonly order = 10;
  readonly kinds = ['confirm', 'question'] as const;

  constructor(private readonly io: PromptIo = { input: process.stdin, output: process.stderr }) {}

  accepts(request: PersonRequest): boolean {
    return request.iface === 'cli' && this.io.input.isTTY === true;
  }

  whyNot(request: PersonRequest): string | undefined {
    return request.iface === 'cli' && !this.io.input.isTTY ? 'no terminal to ask on (stdin is not a TTY)' : undefined;
  }

  async ask(request: PersonRequest, signal: AbortSignal): Promise<PersonAnswer> {
    if (!this.io.input.isTTY) throw new FactorlyError('NO_ANSWER', 'cli-prompt (no terminal to ask on)');
    // Already answered elsewhere (or given up): ask nobody.
    if (signal.aborted) return { action: 'cancel', by: this.name };
    return request.kind === 'confirm' ? this.confirm(request, signal) : this.question(request, signal);
  }

  private async confirm(request: ConfirmPrompt, signal: AbortSignal): Promise<PersonAnswer> {
    this.io.output.write(`⚠ Tool "${request.tool}" requires confirmation.\n  params: ${preview(request.params)}\n`);
    // A standing approval offered (`confirm: {for: 30m}`) is a third answer: `a` approves for that long.
    const standing = request.standing?.[0];
    const asked = standing ? `Proceed? (y = this call, a = ${standing.label}, n = no): ` : 'Proceed? (y/n): ';
    const answer = (await readLine(this.io, asked, signal))?.trim() ?? '';
    if (standing && /^a/i.test(answer)) return { action: 'accept', standing: standing.kind, by: this.name };
    return { action: /^y/i.test(answer) ? 'accept' : 'decline', by: this.name };
  }

  private async question({ question, check }: QuestionPrompt, signal: AbortSignal): Promise<PersonAnswer> {
    const choices = question.enum ? ` [${question.enum.join('/')}]` : '';
    const fallback = question.default === undefined ? '' : ` (default: ${JSON.stringify(question.default)})`;
    this.io.output.write(`? ${question.description ?? question.name}${choices}${fallback}\n`);
    for (let tries = 0; tries < TRIES; tries++) {
      const line = await readLine(this.io, `${question.name}: `, signal);
      if (line === undefined) return { action: 'cancel', by: this.name };
      const checked = check(line);
      if (checked.ok) return { action: 'accept', value: checked.value ?? null, by: this.name };
      this.io.output.write(`  ${checked.message}\n`);
    }
    throw new FactorlyError('NO_ANSWER', `cli-prompt (no answer that fits "${question.name}" in ${TRIES} tries)`);
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
