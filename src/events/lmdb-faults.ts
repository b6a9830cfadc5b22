import type { RootDatabase } from 'lmdb';
import { FactorlyError, messageOf } from '../base/errors.js';
import { damaged } from './lmdb-events.js';

/**
 * How lmdb-js fails a commit (a full disk, an I/O error), and what the log does about it, in one
 * place: the cause comes in a promise of its own, a pending promise of lmdb-js's own would end the
 * process as an unhandled rejection, LMDB prints to stderr, and closing after a failure hangs.
 */

/** The error `append` throws: one line naming the file and the cause (exit 1; 2 when the file is damaged). */
export async function commitFailure(path: string, error: unknown): Promise<FactorlyError> {
  const commitError = (error as { commitError?: Promise<never> }).commitError;
  const cause = commitError ? await commitError.catch((reason: unknown) => reason) : error;
  // A page LMDB could not read while writing (the transaction then fails as a whole): the file is damaged.
  const message = messageOf(cause);
  if (/^MDB_(CORRUPTED|PAGE_NOTFOUND|BAD_TXN)\b/.test(message)) {
    // lmdb-js printed "txn has failed/finished, can't commit" without ending the line.
    if (message.startsWith('MDB_BAD_TXN')) process.stderr.write('\n');
    return damaged(path, `it could not be read while writing it (${message})`, cause);
  }
  const code = (cause as { code?: unknown }).code;
  // LMDB's C code printed "Write error: …" to stderr without ending the line: end it, so the
  // message factorly prints stays a line of its own.
  if (typeof code === 'number') process.stderr.write('\n');
  return new FactorlyError(
    'LOG_WRITE_FAILED',
    `cannot write the event log ${path}: ${messageOf(cause)}${code === 5 ? ' (is the disk full?)' : ''}`,
    { cause },
  );
}

/**
 * lmdb-js batches the writes of one event turn under a commit promise of its own, made in an
 * immediate it queues; a failed commit rejects it with nothing waiting on it. Once that immediate
 * has run, it gets a handler (the transaction itself reports the failure).
 */
export function guardPendingCommit(root: RootDatabase): void {
  setImmediate(() => void (root.committed as PromiseLike<unknown>).then(undefined, () => undefined));
}

/**
 * After a failed commit lmdb-js waits forever for that commit's flush when closing: the
 * environment is then let go without waiting (LMDB needs no clean close to stay intact).
 */
export async function closeRoot(root: RootDatabase, afterFailure: boolean): Promise<void> {
  if (afterFailure) await Promise.race([root.close(), new Promise((resolve) => setTimeout(resolve, 200))]);
  else await root.close();
}

/**
 * lmdb-js prints a failed commit's cause with console.error (a stack trace on stderr) before it
 * rejects the write; `append` reports that cause itself. So those prints, and only those, are dropped.
 */
function quietCommitFailures(): void {
  const print = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (args.length === 1 && args[0] instanceof Error && /[\\/]lmdb[\\/]write\.js/.test(args[0].stack ?? '')) return;
    print(...args);
  };
}
quietCommitFailures();
