import type { ChunkSummary, IndexCheck, IndexName, IndexProblem, ScanSource } from './verify-scan.js';
import { scanChunk } from './verify-scan.js';
import { scanIndex } from './verify-index-scan.js';
import type { Digest, Seeds } from './index-digest.js';
import type { DerivedSet } from './verify-derived.js';
import { StretchFold, type FoldComparison, type FoldStates, type FoldTarget } from './verify-fold.js';

export interface ChunkRequest {
  from: number;
  to: number;
  sizes: number[];
}

/**
 * One piece of a scan: a chunk of events (and, with `fold`, its part of the re-fold of the
 * projections whose snapshots are checked), or one index summed as it is stored.
 */
export type ScanJob =
  | { kind: 'chunk'; request: ChunkRequest; indexes: IndexCheck; judged?: readonly string[]; fold?: boolean }
  | { kind: 'index'; name: IndexName; seeds: Seeds; upTo: number; judged?: readonly string[] };
export type IndexSummary = { name: string; count: number; digest: Digest; problems: IndexProblem[] };
export type ScanResult = ChunkSummary | IndexSummary;

/** What one thread answers for a job: its result, its part of the fold, or that it keeps its events until the states before them come. */
export interface Ran {
  result?: ScanResult;
  folded?: { states: FoldStates; compared: FoldComparison[] };
  keeping?: boolean;
}

/**
 * Runs scan jobs on one thread (a worker, or the caller's): a chunk is checked, and when it folds,
 * its events are folded onto the states before it, at once when those are known (`ready`), else
 * kept until `foldKept` brings them.
 */
export class ScanRunner {
  private kept?: StretchFold;

  constructor(
    private readonly source: ScanSource,
    private readonly derived: DerivedSet,
    private readonly targets: readonly FoldTarget[],
  ) {}

  run(job: ScanJob, before: { states?: FoldStates; ready?: boolean } = {}): Ran {
    if (job.kind === 'index') return { result: scanIndex(this.source, job.name, job.seeds, job.upTo, job.judged) };
    const judged = new Set(job.judged ?? []);
    const indexes = this.derived.indexes.filter((index) => judged.has(index.name));
    const fold = job.fold ? new StretchFold(this.derived.projections, this.targets) : undefined;
    const { from, to, sizes } = job.request;
    const result: ChunkSummary = scanChunk(this.source, from, to, sizes, job.indexes, {
      indexes,
      keep: fold && ((event) => fold.keep(event)),
    });
    if (!fold) return { result };
    if (before.ready) return { result, folded: fold.fold(before.states) };
    this.kept = fold;
    return { result, keeping: true };
  }

  /** The kept chunk folded onto the states before it. */
  foldKept(states: FoldStates | undefined): Ran {
    const fold = this.kept!;
    this.kept = undefined;
    return { folded: fold.fold(states) };
  }
}
