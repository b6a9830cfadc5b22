import { parentPort, workerData } from 'node:worker_threads';
import { openLogFile } from './lmdb-scan-source.js';
import { scanChunk } from './verify-scan.js';

/**
 * A worker thread of `logs verify`: checks the chunks it is handed (each message: from, to, the
 * root sizes wanted in it) and answers with their summaries. LMDB lets threads share the file.
 */
export interface ChunkRequest {
  from: number;
  to: number;
  sizes: number[];
}

const { path } = workerData as { path: string };
const file = openLogFile(path);
parentPort!.on('message', (request: ChunkRequest | null) => {
  if (request === null) {
    void file.root.close().then(() => parentPort!.close());
    return;
  }
  try {
    parentPort!.postMessage({ summary: scanChunk(file.source, request.from, request.to, request.sizes) });
  } catch (error) {
    parentPort!.postMessage({ error: (error as Error).message });
  }
});
