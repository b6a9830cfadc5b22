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
const CLOCK_SKEW_MS = 60_000;

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

  /** Folds the events up to `to` (a head the caller read); a cold start begins at the rules' horizon. */
  async catchUp(log: EventLog, to: number, now: number): Promise<void> {
    if (to <= this.seq) return;
    let from = this.seq + 1;
    if (this.seq === 0) {
      const rules = this.rules().filter((rule) => rule.history && !this.broken.has(rule));
      for (const rule of rules) this.states.set(rule, rule.history!.init());
      from = await this.horizonStart(log, rules, to, now);
    }
    try {
      for await (const event of log.read({ from, to })) {
        // A decision inside a write (foldMoved) may have folded further meanwhile.
        if (event.seq <= this.seq) continue;
        this.fold(event);
      }
      this.seq = Math.max(this.seq, to);
    } catch (error) {
      // A half-applied fold must never be used: start over from the beginning next time.
      this.reset();
      throw error;
    }
  }

  /**
   * Folds, inside a conditional write (synchronously), the events up to `head` not folded yet.
   * False when there is no fold to continue (never folded, or reset) or it is ahead of `head`:
   * the caller then falls back to reading the log.
   */
  foldMoved(head: number, readFrom: (seq: number) => readonly Recorded[]): boolean {
    if (this.seq === 0 || this.seq > head) return false;
    if (this.seq === head) return true;
    try {
      for (const event of readFrom(this.seq + 1)) if (event.seq > this.seq && event.seq <= head) this.fold(event);
    } catch {
      // As in catchUp: never use a half-applied fold. The append then conflicts, and the retry
      // reads the log, where the same failure is recorded as the rule's decision.
      this.reset();
      return false;
    }
    return this.seq === head;
  }

  private fold(event: Recorded): void {
    const current = upcast(event);
    for (const [rule, state] of this.states) this.evolve(rule, state, current);
    this.seq = event.seq;
  }

  /** First seq whose event is inside every rule's horizon (1 if a rule has none): a binary search on `at`. */
  private async horizonStart(log: EventLog, rules: ShadowRule[], to: number, now: number): Promise<number> {
    if (rules.length === 0 || rules.some((rule) => rule.historyHorizonMs === undefined)) return 1;
    // Clocks of several writers may disagree a little: start a minute early.
    const cutoff = now - Math.max(...rules.map((rule) => rule.historyHorizonMs!)) - CLOCK_SKEW_MS;
    let low = 1;
    let high = to + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      let at = Number.POSITIVE_INFINITY;
      for await (const event of log.read({ from: middle, to: middle })) at = Date.parse(event.at);
      if (at < cutoff) low = middle + 1;
      else high = middle;
    }
    return low;
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
