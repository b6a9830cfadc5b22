import type { Recorded } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { messageOf } from './base/errors.js';
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
  /** Rules whose fold threw: their state is unknowable, so they fail (closed) until the process restarts. */
  private readonly broken = new Map<ShadowRule, string>();

  constructor(private readonly rules: () => ShadowRule[]) {}

  /** Last seq folded into the states. */
  get folded(): number {
    return this.seq;
  }

  /** Folds events up to `to` (a head the caller read) and returns the state of `rule`. */
  async catchUp(log: EventLog, to: number): Promise<void> {
    if (to <= this.seq) return;
    if (this.seq === 0) for (const rule of this.rules()) if (rule.history && !this.broken.has(rule)) this.states.set(rule, rule.history.init());
    try {
      for await (const event of log.read({ from: this.seq + 1, to })) {
        const current = upcast(event);
        for (const [rule, state] of this.states) this.evolve(rule, state, current);
        this.seq = event.seq;
      }
    } catch (error) {
      // A half-applied fold must never be used: start over from the beginning next time.
      this.reset();
      throw error;
    }
  }

  /** Why a rule's state cannot be used, if its fold failed. */
  brokenReason(rule: ShadowRule): string | undefined {
    return this.broken.get(rule);
  }

  stateOf(rule: ShadowRule): unknown {
    return this.states.get(rule) ?? rule.history?.init();
  }

  private evolve(rule: ShadowRule, state: unknown, event: Recorded): void {
    try {
      this.states.set(rule, rule.history!.evolve(state, event));
    } catch (error) {
      this.broken.set(rule, messageOf(error));
      this.states.delete(rule);
    }
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
