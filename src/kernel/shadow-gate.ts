import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { FactorlyError, messageOf } from '../base/errors.js';
import type { ShadowContext, ShadowRule, ShadowVerdict } from '../contracts/extensions.js';
import type { PersonChannel } from '../contracts/person.js';
import type { Redactor } from './redact.js';
import { BLOCKING, decideChain, decideChainNow, fingerprintOf, type Decided, type RuleStates } from './rule-chain.js';
import { askConfirmation } from '../contracts/person-confirm.js';
import { RuleHistories } from './shadow-history.js';
import { failed } from './shadow-rule-run.js';
import type { OrderedRegistry } from './registries.js';

/** `decision` is what blocked (`deny`, `confirm`, …), `rule` the name of the rule that decided it. */
export type GateResult =
  { blocked: false; warnings: string[] } | { blocked: true; decision: string; rule: string; reason: string };
export type GateRequest = Omit<ShadowContext, 'fingerprint' | 'now'>;

/** Attempts at recording a history-dependent decision before giving up (failing closed). */
const MAX_ATTEMPTS = 100;

/** One call's pass through the gate: the log, what the rules see, its events not yet written, its scrubber. */
interface Pass {
  log: EventLog;
  context: ShadowContext;
  pending: NewEvent[];
  redact?: Redactor;
}

/**
 * Runs the shadow rules in order and records each decision (src/kernel/README.md, "The shadow
 * gate", walks through it). When a rule has `history`, the chain is decided against the log's head
 * and recorded with `expectedSeq`, and decided again when another writer got there first.
 * Confirmation is asked last, once every other rule let the call through, so nobody approves a call
 * that is then blocked anyway.
 */
export class ShadowGate {
  private readonly histories: RuleHistories;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly rules: OrderedRegistry<ShadowRule>,
    /** Every channel a person can be reached on (`personChannels`), asked when a rule wants confirmation. */
    private readonly channels: { list(): readonly PersonChannel[] },
    private readonly clock: () => number = Date.now,
  ) {
    this.histories = new RuleHistories(() => this.rules.list());
  }

  /**
   * Decides a call. `before` are the call's own events not yet written (`call.requested`): they are
   * appended in the same batch as the decisions, so a call costs one append up to execution.
   * `redact` scrubs the call tree's secrets from the reasons recorded and the params a person is shown.
   */
  async check(log: EventLog, request: GateRequest, before: NewEvent[] = [], redact?: Redactor): Promise<GateResult> {
    const context: ShadowContext = {
      ...request,
      fingerprint: fingerprintOf(request.tool.name, request.params),
      now: this.clock(),
    };
    const pending = [...before];
    const rules = this.rules.list();
    const pass = { log, context, pending, redact };
    // With any history rule the whole chain is decided against one head and recorded at once.
    const decided = rules.some((rule) => rule.history)
      ? await this.decideWithHistory(pass, rules)
      : await this.decideStateless(pass, rules);
    const warnings: string[] = [];
    let confirm: Decided | undefined;
    for (const { rule, verdict } of decided) {
      if (BLOCKING.has(verdict.decision)) {
        await flush(log, pending);
        return { blocked: true, decision: verdict.decision, rule: rule.name, reason: verdict.reason };
      }
      if (verdict.decision === 'warn') warnings.push(verdict.reason);
      if (verdict.decision === 'confirm') confirm ??= { rule, verdict };
    }
    if (confirm) return this.confirm(pass, confirm, warnings);
    await flush(log, pending);
    return { blocked: false, warnings };
  }

  /** The rules in the order they are asked (for re-deriving recorded decisions). */
  ruleList(): ShadowRule[] {
    return this.rules.list();
  }

  /** Every history rule's state as the log has folded it (tests compare it with a replay from scratch). */
  async historySnapshot(log: EventLog): Promise<{ seq: number; states: Record<string, unknown> }> {
    return this.exclusive(() => this.histories.snapshot(log));
  }

  /** Registers the rules' history projections with a log, so its writes keep them folded from the first one on. */
  registerHistories(log: EventLog): void {
    this.histories.register(log);
  }

  private async decideStateless({ context, pending, redact }: Pass, rules: ShadowRule[]): Promise<Decided[]> {
    const decided = await this.evaluateGroup(rules, context, new Map(), redact);
    pending.push(...decided.map(({ rule, verdict }) => this.decidedEvent(rule, context, verdict)));
    return decided;
  }

  /**
   * Decides the rules against one head and records the decisions in one conditional append. The
   * decision is taken one call at a time, but the append is not waited for in that turn: when other
   * calls' events land first, the write itself folds them and decides again (`onConflict`), so
   * concurrent calls share one durable commit instead of queueing one commit each.
   */
  private async decideWithHistory(pass: Pass, group: ShadowRule[]): Promise<Decided[]> {
    const { log, context, pending, redact } = pass;
    const stateful = group.find((rule) => rule.history)!;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const round = await this.exclusive(() => this.decideAtHead(log, group, context, redact));
      if ('unreadable' in round)
        return this.recordPlain(pass, stateful, failed(stateful, 'could not read its state', round.unreadable));
      let decided = round.decided;
      if (!decided.some(({ rule }) => rule.history)) {
        pending.push(...decided.map(({ rule, verdict }) => this.decidedEvent(rule, context, verdict)));
        return decided;
      }
      // The log has folded the events since into the rules' projections when it calls this.
      const onConflict = (): NewEvent[] | undefined => {
        const again = this.evaluateNow(group, { ...context, now: this.clock() }, this.histories.folded(log), redact);
        if (again === undefined) return undefined;
        decided = again;
        return [...pending, ...again.map(({ rule, verdict }) => this.decidedEvent(rule, context, verdict))];
      };
      const events = decided.map(({ rule, verdict }) => this.decidedEvent(rule, context, verdict));
      try {
        await log.append([...pending, ...events], { expectedSeq: round.head, onConflict });
        pending.length = 0;
        return decided;
      } catch (error) {
        // A failed write is the log's to recover from (it forgets folds that may hold uncommitted events).
        if (!(FactorlyError.isInstance(error) && error.code === 'LOG_CONFLICT')) throw error;
        if (attempt > 3) await pause(Math.random() * Math.min(attempt, 20));
      }
    }
    const detail = `the event log kept moving for ${MAX_ATTEMPTS} attempts`;
    return this.recordPlain(pass, stateful, failed(stateful, 'could not record its decision', detail));
  }

  /** The chain decided against the log's head as it is now (history decisions of one process go one at a time). */
  private async decideAtHead(
    log: EventLog,
    group: ShadowRule[],
    context: ShadowContext,
    redact: Redactor | undefined,
  ): Promise<{ head: number; decided: Decided[] } | { unreadable: string }> {
    let folded: { seq: number; states: RuleStates };
    try {
      folded = await this.histories.current(log);
    } catch (error) {
      return { unreadable: messageOf(error) };
    }
    return {
      head: folded.seq,
      decided: await this.evaluateGroup(group, { ...context, now: this.clock() }, folded.states, redact),
    };
  }

  /**
   * The chain decided again inside a write, synchronously. Undefined when a rule answers with a
   * promise (it cannot be waited for there): the append then conflicts and is retried as a whole.
   */
  private evaluateNow(
    group: ShadowRule[],
    context: ShadowContext,
    states: RuleStates,
    redact: Redactor | undefined,
  ): Decided[] | undefined {
    const decided = decideChainNow(group, context, states);
    if (decided && redact?.active && !decided.every(({ verdict }) => scrubNow(verdict, redact))) return undefined;
    return decided;
  }

  private async evaluateGroup(
    group: ShadowRule[],
    context: ShadowContext,
    states: RuleStates,
    redact: Redactor | undefined,
  ): Promise<Decided[]> {
    const decided = await decideChain(group, context, states);
    if (redact?.active)
      for (const { verdict } of decided)
        Object.assign(verdict, { reason: await redact.text(verdict.reason), facts: await redact.value(verdict.facts) });
    return decided;
  }

  private async recordPlain(
    { log, context, pending }: Pass,
    rule: ShadowRule,
    verdict: ShadowVerdict,
  ): Promise<Decided[]> {
    pending.push(this.decidedEvent(rule, context, verdict));
    await flush(log, pending);
    return [{ rule, verdict }];
  }

  private async confirm(pass: Pass, { rule, verdict }: Decided, warnings: string[]): Promise<GateResult> {
    const scrub = pass.redact && pass.redact.value.bind(pass.redact);
    const answer = await askConfirmation(
      pass.log,
      this.channels.list(),
      { ...pass, scrub },
      { rule: rule.name, verdict },
    );
    return answer.approved
      ? { blocked: false, warnings }
      : { blocked: true, decision: 'confirm', rule: 'confirm', reason: answer.reason };
  }

  private decidedEvent(rule: ShadowRule, context: ShadowContext, verdict: ShadowVerdict): NewEvent {
    const plugin = this.rules.ownerOf(rule) ?? 'unknown';
    const { decision, reason, facts } = verdict;
    return {
      type: 'shadow.decided',
      data: { callId: context.callId, rule: rule.name, plugin, decision, reason, facts },
    };
  }

  /** History decisions of one process are taken one at a time (their writes may overlap). */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Scrubs a verdict's reason and facts in place without waiting; false when that cannot be done inside a write. */
function scrubNow(verdict: ShadowVerdict, redact: Redactor): boolean {
  const reason = redact.textNow(verdict.reason);
  const facts = verdict.facts === undefined ? undefined : redact.valueNow(verdict.facts);
  if (reason === undefined || (verdict.facts !== undefined && facts === undefined)) return false;
  Object.assign(verdict, { reason, facts });
  return true;
}

/** Writes the call's events not written yet (emptying `pending`). */
async function flush(log: EventLog, pending: NewEvent[]): Promise<void> {
  if (pending.length > 0) await log.append(pending.splice(0));
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
