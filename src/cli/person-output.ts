import { codeInfo, FactorlyError, messageOf } from '../kernel/base/errors.js';
import { printableLine, printableText } from '../kernel/base/printable.js';

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

export function writeWarning(message: string): void {
  process.stderr.write(`warning: ${printableText(message)}\n`);
}

/**
 * One line on stderr for a failure that stopped a command (never a stack trace unless
 * FACTORLY_DEBUG is set), and the exit code it ends with.
 */
export function reportFailure(error: unknown): number {
  if (FactorlyError.isInstance(error)) {
    process.stderr.write(`Error: ${printableText(error.message)}\n`);
    // By code, not by the `exitCode` getter: a plugin's error may carry the brand without the class.
    return codeInfo(error.code).exit;
  }
  if (/^MDB_[A-Z_]+:/.test(messageOf(error))) {
    // lmdb found damage past the pages checked before opening: the log could not be read (not "tampered").
    process.stderr.write(`Error: the event log could not be read: ${printableLine(messageOf(error))}\n`);
    return 2;
  }
  process.stderr.write(`Error: ${printableText(messageOf(error))}\n`);
  if (process.env.FACTORLY_DEBUG) process.stderr.write(`${printableText((error as Error).stack ?? '')}\n`);
  return 1;
}
