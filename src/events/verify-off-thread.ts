import { FactorlyError, uncrossed, type CrossedError } from '../base/errors.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { verifierFromKey } from './signed-note.js';
import { verifyLogFile, type LogVerification } from './verify-log.js';
import type { DerivedView } from './derived-views.js';
import { derivedSet } from './verify-derived.js';

/**
 * `verifyLogFile` on a thread of its own, for a server that must keep answering while a big log is
 * checked (the file walk and the joins run on the calling thread otherwise). Runs here when the
 * compiled thread is not there (tests run from the sources).
 */
export function verifyLogFileOffThread(
  path: string,
  options: { verifierKeys: readonly string[]; threads?: number; views?: readonly DerivedView[] },
): Promise<LogVerification> {
  const script = new URL('./verify-thread.js', import.meta.url);
  const { views, threads } = options;
  if (!existsSync(fileURLToPath(script)))
    return verifyLogFile(path, { verifiers: options.verifierKeys.map(verifierFromKey), threads, views });
  // Projections and indexes cross as the modules that export them (a view holds functions).
  const refs = derivedSet(views).refs;
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, {
      workerData: { path, verifierKeys: [...options.verifierKeys], threads, refs },
    });
    worker.once('message', (message: { report?: LogVerification } & Partial<CrossedError>) => {
      if (message.report) resolve(message.report);
      // A verification that failed without a code of its own could not read the log (lmdb, I/O).
      else reject(uncrossed(message, 'LOG_UNREADABLE'));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(
        new FactorlyError('LOG_UNREADABLE', `the verification thread stopped (exit code ${code}) before it answered`),
      ),
    );
  });
}
