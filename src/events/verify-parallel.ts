import { uncrossed, type CrossedError } from '../base/errors.js';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  scanChunk,
  scanIndex,
  type ChunkSummary,
  type IndexCheck,
  type IndexName,
  type IndexProblem,
  type ScanSource,
} from './verify-scan.js';
import type { Digest, Seeds } from './index-digest.js';

export interface ChunkRequest {
  from: number;
  to: number;
  sizes: number[];
}

/** One piece of a scan: a chunk of events, or one index summed as it is stored. */
export type ScanJob =
  | { kind: 'chunk'; request: ChunkRequest; indexes: IndexCheck }
  | { kind: 'index'; name: IndexName; seeds: Seeds; upTo: number };
export type IndexSummary = { name: string; count: number; digest: Digest; problems: IndexProblem[] };
export type ScanResult = ChunkSummary | IndexSummary;

export function runScanJob(source: ScanSource, job: ScanJob): ScanResult {
  return job.kind === 'chunk'
    ? scanChunk(source, job.request.from, job.request.to, job.request.sizes, job.indexes)
    : scanIndex(source, job.name, job.seeds, job.upTo);
}

/** Leaves per chunk: a power of two, so each full chunk is one complete subtree of the tree. */
export const CHUNK_EVENTS = 2 ** 16;
/** Below this many events the scan stays on the calling thread (threads cost more than they save). */
const PARALLEL_FROM = 4 * CHUNK_EVENTS;

function describe(job: ScanJob): string {
  return job.kind === 'chunk' ? `events ${job.request.from}–${job.request.to}` : `the ${job.name} index`;
}

export function planChunks(last: number, sizes: readonly number[], chunk = CHUNK_EVENTS): ChunkRequest[] {
  const plan: ChunkRequest[] = [];
  for (let from = 1; from <= last; from += chunk) {
    const to = Math.min(last, from + chunk - 1);
    plan.push({ from, to, sizes: sizes.filter((size) => size >= from && size <= to) });
  }
  return plan;
}

/**
 * Runs every job, on worker threads when the log is long enough and the compiled worker is there
 * (one per core, fed one job at a time so a busy core takes fewer), else here. The results come
 * back in job order; a worker that fails fails the scan.
 */
export async function scanAll(
  path: string,
  source: ScanSource,
  plan: readonly ScanJob[],
  options: { threads?: number; events: number },
): Promise<ScanResult[]> {
  const worker = new URL('./verify-worker.js', import.meta.url);
  const threads = Math.min(options.threads ?? availableParallelism(), plan.length);
  if (threads < 2 || options.events < PARALLEL_FROM || !existsSync(fileURLToPath(worker))) {
    return plan.map((job) => runScanJob(source, job));
  }
  return scanOnWorkers(worker, path, plan, threads);
}

async function scanOnWorkers(
  script: URL,
  path: string,
  plan: readonly ScanJob[],
  threads: number,
): Promise<ScanResult[]> {
  const results: ScanResult[] = new Array(plan.length);
  let next = 0;
  const run = (): Promise<void> =>
    new Promise((resolve, reject) => {
      // A chunk holds little at a time: a small heap keeps the scan's memory the same at any length.
      const worker = new Worker(script, {
        workerData: { path },
        resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      });
      let current = -1;
      const feed = (): void => {
        current = next < plan.length ? next++ : -1;
        worker.postMessage(current < 0 ? null : plan[current]);
      };
      worker.on('message', (message: { result?: ScanResult } & Partial<CrossedError>) => {
        if (message.error !== undefined) {
          void worker.terminate();
          reject(uncrossed(message, 'LOG_UNREADABLE', `verifying ${describe(plan[current]!)}: `));
          return;
        }
        results[current] = message.result!;
        feed();
      });
      worker.once('error', reject);
      worker.once('exit', () => resolve());
      feed();
    });
  await Promise.all(Array.from({ length: threads }, run));
  return results;
}
