import { crossing } from '../base/errors.js';
import { parentPort, workerData } from 'node:worker_threads';
import { verifierFromKey } from './signed-note.js';
import { verifyLogFile } from './verify-log.js';
import { loadRefs, type DerivedRef } from './verify-derived.js';

/**
 * The thread `verifyLogFileOffThread` starts: one whole verification (which may start scan threads
 * of its own), answered once. Verifier keys cross as text: a verifier holds functions.
 */
const { path, verifierKeys, threads, refs } = workerData as {
  path: string;
  verifierKeys: string[];
  threads?: number;
  refs: DerivedRef[];
};
loadRefs(refs)
  .then((derived) => verifyLogFile(path, { verifiers: verifierKeys.map(verifierFromKey), threads, derived }))
  .then(
    (report) => parentPort!.postMessage({ report }),
    (error: unknown) => parentPort!.postMessage(crossing(error)),
  );
