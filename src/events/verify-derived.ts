import { FactorlyError } from '../base/errors.js';
import { derivedViews, isProjection, type DerivedView } from './derived-views.js';
import { indexStamp, type EventIndex } from './event-index.js';
import type { Projection } from './projection.js';
import { checkLmdbFile } from './lmdb-file-check.js';
import { openLogFile, type OpenedLogFile } from './lmdb-scan-source.js';
import { stampOf } from './projection-set.js';

/** A projection or index named by the module that exports it: what crosses to a verification thread. */
export interface DerivedRef {
  kind: 'projection' | 'index';
  name: string;
  module: string;
  /** Its stamp where it was named: the thread checks it loaded the same code. */
  stamp: string;
}

/** The derived state verification re-derives: loaded, and named for threads. */
export interface DerivedSet {
  projections: Projection<unknown>[];
  indexes: EventIndex[];
  refs: DerivedRef[];
  /** Those that name no module (`module: import.meta.url`): checked on this thread only. */
  unloadable: string[];
}

export function viewStamp(view: DerivedView): string {
  return isProjection(view) ? stampOf(view) : indexStamp(view);
}

/** Verification's set: the views given (default: factorly's own and those registered in this process), one per name. */
export function derivedSet(views: readonly DerivedView[] = defaultViews()): DerivedSet {
  const unique = [...new Map(views.map((view) => [view.name, view])).values()];
  const refs: DerivedRef[] = [];
  const unloadable: string[] = [];
  for (const view of unique) {
    const kind = isProjection(view) ? 'projection' : 'index';
    if (typeof view.module === 'string')
      refs.push({ kind, name: view.name, module: view.module, stamp: viewStamp(view) });
    else unloadable.push(view.name);
  }
  return {
    projections: unique.filter(isProjection),
    indexes: unique.filter((view): view is EventIndex => !isProjection(view)),
    refs,
    unloadable,
  };
}

/** Factorly's own projections and indexes, and those registered in this process. */
export function defaultViews(): DerivedView[] {
  const { projections, indexes } = derivedViews();
  return [...projections, ...indexes];
}

/**
 * The views `refs` name, imported on this thread: each module's exports are searched for the view of
 * that name, and its stamp must be the one named (the same code), else verification would compare
 * against another fold.
 */
export async function loadRefs(refs: readonly DerivedRef[]): Promise<DerivedSet> {
  const modules = new Map<string, Record<string, unknown>>();
  const views: DerivedView[] = [];
  for (const ref of refs) {
    if (!modules.has(ref.module)) modules.set(ref.module, (await import(ref.module)) as Record<string, unknown>);
    const view = Object.values(modules.get(ref.module)!).find(
      (value): value is DerivedView =>
        typeof value === 'object' && value !== null && (value as { name?: unknown }).name === ref.name,
    );
    if (!view || viewStamp(view) !== ref.stamp)
      throw new FactorlyError(
        'LOG_UNREADABLE',
        `verification could not load ${ref.kind} "${ref.name}" from ${ref.module} as the process that asked for it has it`,
      );
    views.push(view);
  }
  return derivedSet(views);
}

/**
 * The names of the derived state a log file keeps that factorly's own code does not know (a rule's
 * history, a plugin's projection or index): only then must verification load the project's plugins
 * to re-derive them. A file that cannot be opened is left to verification itself to report.
 */
export async function unknownStoredViews(path: string): Promise<string[]> {
  const { projections, indexes } = derivedViews();
  const known = new Set([...projections, ...indexes].map((view) => view.name));
  let file: OpenedLogFile | undefined;
  try {
    checkLmdbFile(path);
    file = openLogFile(path);
    const names = [...file.derived.snapshotNames(), ...Object.keys(file.derived.coverageRecord()?.stamps ?? {})];
    return names.filter((name) => !known.has(name));
  } catch {
    return [];
  } finally {
    await file?.root.close();
  }
}
