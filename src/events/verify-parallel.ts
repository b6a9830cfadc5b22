import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ChunkRequest } from './verify-worker.js';
import { scanChunk, type ChunkSummary, type ScanSource } from './verify-scan.js';

/** Leaves per chunk: a power of two, so each full chunk is one complete subtree of the tree. */
export const CHUNK_EVENTS = 2 ** 16;
/** Below this many events the scan stays on the calling thread (threads cost more than they save). */
const PARALLEL_FROM = 4 * CHUNK_EVENTS;

export function planChunks(last: number, sizes: readonly number[], chunk = CHUNK_EVENTS): ChunkRequest[] {
  const plan: ChunkRequest[] = [];
  for (let from = 1; from <= last; from += chunk) {
    const to = Math.min(last, from + chunk - 1);
    plan.push({ from, to, sizes: sizes.filter((size) => size >= from && size <= to) });
  }
  return plan;
}

/**
 * Scans every chunk, on worker threads when the log is long enough and the compiled worker is
 * there (one per core, fed one chunk at a time so a busy core takes fewer), else here. The
 * summaries come back in chunk order; a worker that fails fails the scan.
 */
export async function scanAll(path: string, source: ScanSource, plan: readonly ChunkRequest[], options: { threads?: number } = {}): Promise<ChunkSummary[]> {
  const worker = new URL('./verify-worker.js', import.meta.url);
  const events = plan.at(-1)?.to ?? 0;
  const threads = Math.min(options.threads ?? availableParallelism(), plan.length);
  if (threads < 2 || events < PARALLEL_FROM || !existsSync(fileURLToPath(worker))) {
    return plan.map((request) => scanChunk(source, request.from, request.to, request.sizes));
  }
  return scanOnWorkers(worker, path, plan, threads);
}

async function scanOnWorkers(script: URL, path: string, plan: readonly ChunkRequest[], threads: number): Promise<ChunkSummary[]> {
  const results: ChunkSummary[] = new Array(plan.length);
  let next = 0;
  const run = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(script, { workerData: { path } });
      let current = -1;
      const feed = (): void => {
        current = next < plan.length ? next++ : -1;
        worker.postMessage(current < 0 ? null : plan[current]);
      };
      worker.on('message', (message: { summary?: ChunkSummary; error?: string }) => {
        if (message.error !== undefined) {
          void worker.terminate();
          reject(new Error(`verifying events ${plan[current]!.from}–${plan[current]!.to}: ${message.error}`));
          return;
        }
        results[current] = message.summary!;
        feed();
      });
      worker.once('error', reject);
      worker.once('exit', () => resolve());
      feed();
    });
  await Promise.all(Array.from({ length: threads }, run));
  return results;
}
