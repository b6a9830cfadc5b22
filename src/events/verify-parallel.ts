import { uncrossed, type CrossedError } from '../base/errors.js';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ScanSource } from './verify-scan.js';
import type { DerivedRef, DerivedSet } from './verify-derived.js';
import type { FoldComparison, FoldStates, FoldTarget } from './verify-fold.js';
import { ScanRunner, type ChunkRequest, type Ran, type ScanJob, type ScanResult } from './verify-runner.js';

export type { ChunkRequest, IndexSummary, ScanJob, ScanResult } from './verify-runner.js';

/** The derived state a scan re-derives: loaded here, named for the threads, and the snapshots to fold to. */
export interface ScanDerived {
  set: DerivedSet;
  targets: FoldTarget[];
}

/** What the worker threads are started with. */
export interface ScanWorkerData {
  path: string;
  refs: DerivedRef[];
  targets: FoldTarget[];
}

/** Leaves per chunk: a power of two, so each full chunk is one complete subtree of the tree. Small enough that a thread keeps one chunk's events for the fold. */
export const CHUNK_EVENTS = 2 ** 14;
/** Below this many events the scan stays on the calling thread (threads cost more than they save). */
const PARALLEL_FROM = 2 ** 16;

export function describe(job: ScanJob): string {
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

/** The results in job order, and how each checked snapshot compared with the fold of the events. */
export interface Scanned {
  results: ScanResult[];
  compared: FoldComparison[];
}

/**
 * Runs every job, on worker threads when the log is long enough and the compiled worker is there
 * (one per core, fed one job at a time so a busy core takes fewer), else here. Chunks that fold hand
 * the projections' states on in order: a thread that has checked a chunk before the states of the
 * chunk before it are known keeps its events until they are. A worker that fails fails the scan.
 */
export async function scanAll(
  path: string,
  source: ScanSource,
  plan: readonly ScanJob[],
  options: { threads?: number; events: number; derived: ScanDerived },
): Promise<Scanned> {
  const worker = new URL('./verify-worker.js', import.meta.url);
  const threads = Math.min(options.threads ?? availableParallelism(), plan.length);
  if (threads < 2 || options.events < PARALLEL_FROM || !existsSync(fileURLToPath(worker)))
    return scanHere(source, plan, options.derived);
  return new WorkerScan(worker, plan, {
    path,
    refs: options.derived.set.refs,
    targets: options.derived.targets,
  }).run(threads);
}

function scanHere(source: ScanSource, plan: readonly ScanJob[], derived: ScanDerived): Scanned {
  const runner = new ScanRunner(source, derived.set, derived.targets);
  const compared: FoldComparison[] = [];
  let states: FoldStates | undefined;
  const results = plan.map((job) => {
    const ran = runner.run(job, { states, ready: true });
    if (ran.folded) {
      states = ran.folded.states;
      compared.push(...ran.folded.compared);
    }
    return ran.result!;
  });
  return { results, compared };
}

/** The scan on worker threads, with the folds' states handed from chunk to chunk in order. */
class WorkerScan {
  private readonly results: ScanResult[];
  private readonly compared: FoldComparison[] = [];
  private next = 0;
  /** The fold chunks in plan order, and how far the fold has gone (index into `folds`). */
  private readonly folds: number[];
  private foldedUpTo = -1;
  private states: FoldStates | undefined;
  /** Workers that checked a fold chunk and wait for the states before it, by job index. */
  private readonly waiting = new Map<number, Worker>();

  constructor(
    private readonly script: URL,
    private readonly plan: readonly ScanJob[],
    private readonly data: ScanWorkerData,
  ) {
    this.results = new Array<ScanResult>(plan.length);
    this.folds = plan.flatMap((job, i) => (job.kind === 'chunk' && job.fold ? [i] : []));
  }

  async run(threads: number): Promise<Scanned> {
    await Promise.all(Array.from({ length: threads }, () => this.runWorker()));
    return { results: this.results, compared: this.compared };
  }

  private runWorker(): Promise<void> {
    return new Promise((resolve, reject) => {
      // A chunk holds little at a time: a small heap keeps the scan's memory the same at any length.
      const worker = new Worker(this.script, {
        workerData: this.data,
        resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 32 },
      });
      let current = -1;
      const feed = (): void => {
        current = this.next < this.plan.length ? this.next++ : -1;
        if (current < 0) return void worker.postMessage(null);
        // The states before this chunk are known: it folds as it goes, keeping nothing.
        const ready = this.folds[this.foldedUpTo + 1] === current;
        worker.postMessage({ job: this.plan[current], ...(ready ? { states: this.states, ready } : {}) });
      };
      worker.on('message', (message: Ran & Partial<CrossedError>) => {
        if (message.error !== undefined) {
          void worker.terminate();
          reject(uncrossed(message, 'LOG_UNREADABLE', `verifying ${describe(this.plan[current]!)}: `));
          return;
        }
        if (message.result) this.results[current] = message.result;
        if (message.folded) this.foldDone(message.folded);
        if (!message.keeping) return feed();
        // It keeps its chunk's events until the states before them are known: now, or once they are.
        if (this.folds[this.foldedUpTo + 1] === current) worker.postMessage({ fold: this.states });
        else this.waiting.set(current, worker);
      });
      worker.once('error', reject);
      worker.once('exit', () => resolve());
      feed();
    });
  }

  /** A chunk's fold is done: the next fold chunk, when a worker holds it, folds now. */
  private foldDone(folded: NonNullable<Ran['folded']>): void {
    this.foldedUpTo += 1;
    this.states = folded.states;
    this.compared.push(...folded.compared);
    const following = this.folds[this.foldedUpTo + 1];
    const holder = following === undefined ? undefined : this.waiting.get(following);
    if (holder) {
      this.waiting.delete(following!);
      holder.postMessage({ fold: this.states });
    }
  }
}
