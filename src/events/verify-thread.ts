import { crossing } from '../base/errors.js';
import { parentPort, workerData } from 'node:worker_threads';
import { verifierFromKey } from './signed-note.js';
import { verifyLogFile } from './verify-log.js';

/**
 * The thread `verifyLogFileOffThread` starts: one whole verification (which may start scan threads
 * of its own), answered once. Verifier keys cross as text: a verifier holds functions.
 */
const { path, verifierKeys, threads } = workerData as { path: string; verifierKeys: string[]; threads?: number };
verifyLogFile(path, { verifiers: verifierKeys.map(verifierFromKey), threads }).then(
  (report) => parentPort!.postMessage({ report }),
  (error: unknown) => parentPort!.postMessage(crossing(error)),
);
