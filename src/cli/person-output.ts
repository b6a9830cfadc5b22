import { codeInfo, FactorlyError, messageOf } from '../base/errors.js';
import { printableLine, printableText } from '../base/printable.js';
import { lastLogFile } from '../events/lmdb-guard.js';

/**
 * What the CLI writes for a person, whether oclif runs the command or the launcher runs `call`
 * without it: a tool's outcome, warnings and failures, always printable on a terminal.
 */

/** A tool's result: output to stdout (exact when piped, for scripts; printable on a terminal), diagnostics and error to stderr. */
export function writeOutcome(outcome: { output: string; diagnostics?: string; error?: string }): void {
  process.stdout.write(process.stdout.isTTY ? printableText(outcome.output) : outcome.output);
  if (outcome.diagnostics) process.stderr.write(printableText(outcome.diagnostics));
  if (outcome.error) process.stderr.write(`${printableText(outcome.error.replace(/\n$/, ''))}\n`);
}

export { writeWarning } from '../base/printable.js';

/** What a person or a script is told besides the error itself: the command's usage, a next step. */
export interface FailureContext {
  /** Print `{"error": {code, message, usage}}` on stdout instead of text on stderr (the command's --json). */
  json?: boolean;
  /** The command's usage line (`factorly logs [--tail <value>] …`), for a mistake in how it was called. */
  usage?: string;
  /** One more line for a person: where to read on (`See \`factorly logs --help\`.`). */
  hint?: string;
}

/**
 * Reports a failure that stopped a command and returns the exit code it ends with: one line on
 * stderr (never a stack trace unless FACTORLY_DEBUG is set), or under --json one JSON error object on
 * stdout. `code` is the FactorlyError code, absent for a failure factorly did not raise on purpose.
 */
export function reportFailure(error: unknown, context: FailureContext = {}): number {
  const failure = describeFailure(error);
  if (context.json) {
    const { code, message } = failure;
    process.stdout.write(`${JSON.stringify({ error: { code, message, usage: context.usage } })}\n`);
    return failure.exitCode;
  }
  const lines = [`Error: ${printableText(failure.message)}`];
  if (context.usage) lines.push(`Usage: ${printableLine(context.usage)}`);
  if (context.hint) lines.push(printableLine(context.hint));
  process.stderr.write(`${lines.join('\n')}\n`);
  if (failure.unexpected && process.env.FACTORLY_DEBUG)
    process.stderr.write(`${printableText((error as Error).stack ?? '')}\n`);
  return failure.exitCode;
}

interface Failure {
  code?: FactorlyError['code'];
  message: string;
  exitCode: number;
  /** Not raised on purpose: worth a stack trace when debugging. */
  unexpected?: boolean;
}

function describeFailure(error: unknown): Failure {
  // By code, not by the `exitCode` getter: a plugin's error may carry the brand without the class.
  if (FactorlyError.isInstance(error))
    return { code: error.code, message: error.message, exitCode: codeInfo(error.code).exit };
  const message = messageOf(error);
  if (/^MDB_[A-Z_]+:/.test(message)) {
    // lmdb found damage past the pages checked before opening: the log could not be read (not "tampered").
    const file = lastLogFile();
    const unreadable = new FactorlyError(
      'LOG_UNREADABLE',
      `the event log ${file ? `${file} ` : ''}could not be read: ${printableLine(message)}`,
    );
    return { code: unreadable.code, message: unreadable.message, exitCode: codeInfo(unreadable.code).exit };
  }
  return { message, exitCode: 1, unexpected: true };
}
