import type { EventLog } from '../events/log.js';
import { upcast } from '../events/upcast.js';
import type { ShadowRule } from './contracts/extensions.js';

/**
 * The live state of every rule that declares `history`, folded incrementally: each catch-up reads
 * only the events appended since the last one (by this process or any other), so a long-running
 * server and a one-shot CLI process see the same state for the same log.
 */
export class RuleHistories {
  private seq = 0;
  private states = new Map<ShadowRule, unknown>();

  constructor(private readonly rules: () => ShadowRule[]) {}

  /** Last seq folded into the states. */
  get folded(): number {
    return this.seq;
  }

  /** Folds events up to `to` (a head the caller read) and returns the state of `rule`. */
  async catchUp(log: EventLog, to: number): Promise<void> {
    if (to <= this.seq) return;
    if (this.states.size === 0) for (const rule of this.rules()) if (rule.history) this.states.set(rule, rule.history.init());
    try {
      for await (const event of log.read({ from: this.seq + 1, to })) {
        const current = upcast(event);
        for (const [rule, state] of this.states) this.states.set(rule, rule.history!.evolve(state, current));
        this.seq = event.seq;
      }
    } catch (error) {
      // A half-applied fold must never be used: start over from the beginning next time.
      this.reset();
      throw error;
    }
  }

  stateOf(rule: ShadowRule): unknown {
    return this.states.get(rule) ?? rule.history?.init();
  }

  /** Every rule's state, by rule name (for tests and diagnostics). */
  snapshot(): { seq: number; states: Record<string, unknown> } {
    return { seq: this.seq, states: Object.fromEntries([...this.states].map(([rule, state]) => [rule.name, state])) };
  }

  reset(): void {
    this.seq = 0;
    this.states = new Map();
  }
}
