import { FactorlyError } from '../base/errors.js';
import { AUDIT_INDEXES, type EventIndex } from './event-index.js';
import type { Projection } from './projection.js';
import { agentActivityProjection } from './projections/agent-activity.js';
import { dashboardProjection } from './projections/dashboard.js';
import { sessionsProjection } from './projections/sessions.js';
import { standingProjection } from './projections/standing.js';
import { statsProjection } from './projections/stats.js';

/**
 * Derived state kept over the log: a persisted projection (a fold with snapshots) or an index (keys
 * under which events are looked up). Both are evidence like the events: every writer keeps them in
 * the same write as the events, a snapshot is used only when the chain vouches for its digest, an
 * index hit is checked against the event it names, and `logs verify` folds and indexes the log
 * again and names any that differs.
 */
export type DerivedView = Projection<unknown> | EventIndex;

/** The audit view's and the web UI's own: the counters of `logs stats`, the dashboard, the agents' names and what each did, the approvals standing. */
export const AUDIT_PROJECTIONS: readonly Projection<unknown>[] = [
  dashboardProjection,
  sessionsProjection,
  agentActivityProjection,
  standingProjection,
  statsProjection,
] as Projection<unknown>[];

const registered = new Map<string, { view: DerivedView; owner: string }>();

/**
 * Registers derived state a plugin keeps (`registrar.projection`, `registrar.index`), so every log
 * the kernel opens keeps it and verification re-derives it. The registry is the installed code's, one
 * per process: the same view again is accepted, another one under a taken name refused.
 */
export function registerDerivedView(owner: string, view: DerivedView): void {
  const what = 'evolve' in view ? 'projection' : 'index';
  const where = `plugin "${owner}" registers ${what} "${String(view.name)}"`;
  const valid =
    typeof view.name === 'string' &&
    view.name.length > 0 &&
    ('evolve' in view
      ? typeof view.evolve === 'function' && typeof view.init === 'function'
      : typeof view.keys === 'function');
  if (!valid)
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${where}: a projection has a name, init and evolve; an index a name and keys`,
    );
  const builtIn = [...AUDIT_PROJECTIONS, ...AUDIT_INDEXES].some((own) => own.name === view.name);
  const existing = registered.get(view.name);
  if (builtIn || (existing && existing.view !== view))
    throw new FactorlyError(
      'EXTENSION_CONFLICT',
      `${where}, but ${builtIn ? "that is one of factorly's own" : `plugin "${existing!.owner}" registered another one under that name`}`,
    );
  registered.set(view.name, { view, owner });
}

/** Every projection and index a log keeps: factorly's own, then those plugins registered. */
export function derivedViews(): { projections: Projection<unknown>[]; indexes: EventIndex[] } {
  const views = [...registered.values()].map(({ view }) => view);
  return {
    projections: [...AUDIT_PROJECTIONS, ...views.filter(isProjection)],
    indexes: [...AUDIT_INDEXES, ...views.filter((view): view is EventIndex => !isProjection(view))],
  };
}

export function isProjection(view: DerivedView): view is Projection<unknown> {
  return 'evolve' in view;
}
