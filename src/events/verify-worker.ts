import { crossing } from '../base/errors.js';
import { parentPort, workerData } from 'node:worker_threads';
import { openLogFile } from './lmdb-scan-source.js';
import { runScanJob, type ScanJob } from './verify-parallel.js';

/**
 * A worker thread of `logs verify`: runs the jobs it is handed (a chunk of events, or one index)
 * and answers with their results. LMDB lets threads share the file.
 */
const { path } = workerData as { path: string };
const file = openLogFile(path);
parentPort!.on('message', (job: ScanJob | null) => {
  if (job === null) {
    void file.root.close().then(() => parentPort!.close());
    return;
  }
  try {
    parentPort!.postMessage({ result: runScanJob(file.source, job) });
  } catch (error) {
    parentPort!.postMessage(crossing(error));
  }
});
