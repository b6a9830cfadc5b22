import type { EventLog } from '../events/log.js';
import type { ProjectionView } from '../events/projection.js';
import { FactorlyError, messageOf } from '../base/errors.js';
import type { ShadowRule } from '../contracts/extensions.js';

/** A rule's state, or why its fold cannot be used (the rule then fails, closed unless it says otherwise). */
export type RuleState = { state: unknown } | { broken: string };

/**
 * The live state of every rule that declares `history`: each rule's projection is registered with
 * the event log as a persisted projection, so the log folds it in the same write as the events it
 * counts, keeps snapshots of it, and a fresh process starts from the newest snapshot (never from
 * seq 1, never from a guess at how far back events matter). A long-running server and a one-shot
 * CLI process therefore see the same state for the same log.
 */
export class RuleHistories {
  constructor(private readonly rules: () => ShadowRule[]) {}

  /** Registers the history rules' projections with `log` (idempotent), so its writes keep them folded. */
  register(log: EventLog): void {
    this.views(log);
  }

  /**
   * Every history rule's state folded up to the log's head (other processes' events included) and
   * the seq they are folded to. Throws when the log cannot be read.
   */
  async current(log: EventLog): Promise<{ seq: number; states: Map<ShadowRule, RuleState> }> {
    const views = this.views(log);
    let seq = Number.POSITIVE_INFINITY;
    const states = new Map<ShadowRule, RuleState>();
    for (const [rule, view] of views) {
      const folded = await settle(() => view.current());
      if ('broken' in folded) states.set(rule, folded);
      else {
        states.set(rule, { state: folded.value.state });
        seq = Math.min(seq, folded.value.seq);
      }
    }
    return { seq: seq === Number.POSITIVE_INFINITY ? (await log.head()).seq : seq, states };
  }

  /** Inside a write (the conflict handler): the states as the log has folded them, up to that write's head. */
  folded(log: EventLog): Map<ShadowRule, RuleState> {
    return new Map([...this.views(log)].map(([rule, view]) => [rule, foldedState(view)]));
  }

  /** Every rule's state, by rule name (for tests and diagnostics). */
  async snapshot(log: EventLog): Promise<{ seq: number; states: Record<string, unknown> }> {
    const { seq, states } = await this.current(log);
    return {
      seq,
      states: Object.fromEntries(
        [...states].map(([rule, state]) => [rule.name, 'state' in state ? state.state : undefined]),
      ),
    };
  }

  private views(log: EventLog): Map<ShadowRule, ProjectionView<unknown>> {
    const views = new Map<ShadowRule, ProjectionView<unknown>>();
    for (const rule of this.rules()) if (rule.history) views.set(rule, log.project(rule.history));
    return views;
  }
}

/** A fold's state as folded so far, or why it cannot be used (a fold that threw is broken from then on). */
export function foldedState(view: Pick<ProjectionView<unknown>, 'folded'>): RuleState {
  try {
    return { state: view.folded().state };
  } catch (error) {
    return { broken: messageOf(error) };
  }
}

/** A fold's value, or the reason it is broken; any other failure (the log cannot be read) is thrown. */
async function settle<T>(read: () => Promise<T>): Promise<{ value: T } | { broken: string }> {
  try {
    return { value: await read() };
  } catch (error) {
    if (FactorlyError.isInstance(error) && error.code === 'PROJECTION_BROKEN') return { broken: error.message };
    throw error;
  }
}
