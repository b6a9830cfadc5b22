import { crossing } from '../base/errors.js';
import { parentPort, workerData } from 'node:worker_threads';
import { openLogFile } from './lmdb-scan-source.js';
import { loadRefs } from './verify-derived.js';
import type { FoldStates } from './verify-fold.js';
import type { ScanWorkerData } from './verify-parallel.js';
import { ScanRunner, type ScanJob } from './verify-runner.js';

/**
 * A worker thread of `logs verify`: runs the jobs it is handed (a chunk of events, or one index) and
 * answers with their results; a chunk that folds either folds at once (the states before it came
 * with it) or keeps its events until they come (`fold`). LMDB lets threads share the file; the
 * projections and indexes are loaded here from the modules that export them.
 */
const { path, refs, targets } = workerData as ScanWorkerData;
const file = openLogFile(path);
const ready = loadRefs(refs).then((derived) => new ScanRunner(file.source, derived, targets));
type Message = { job: ScanJob; states?: FoldStates; ready?: boolean } | { fold: FoldStates | undefined } | null;
parentPort!.on('message', (message: Message) => {
  if (message === null) {
    void file.root.close().then(() => parentPort!.close());
    return;
  }
  ready
    .then((runner) => ('fold' in message ? runner.foldKept(message.fold) : runner.run(message.job, message)))
    .then(
      (ran) => parentPort!.postMessage(ran),
      (error: unknown) => parentPort!.postMessage(crossing(error)),
    );
});
