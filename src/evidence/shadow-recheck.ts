import type { Params } from '../events/catalog.js';
import type { Recorded } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { ProjectionSet } from '../events/projection-set.js';
import { upcast } from '../events/upcast.js';
import { recordedSettings, recordedTools } from '../config/effective-config.js';
import { outcomeContradiction } from './outcome-check.js';
import type { CallerRun, ShadowContext, ShadowRule } from '../contracts/extensions.js';
import type { ToolDefinition } from '../contracts/tool.js';
import { decideChain, fingerprintOf, type RuleStates } from '../kernel/rule-chain.js';
import { foldedState, type RuleState } from '../kernel/shadow-history.js';

export interface RecheckMismatch {
  seq: number;
  callId: string;
  tool: string;
  recorded: string[];
  rederived: string[];
  /** When the call's outcome contradicts its recorded decisions (it ran though blocked): why. */
  outcome?: string;
}

export interface RecheckReport {
  /** Calls that reached the shadow rules. */
  checked: number;
  /** Calls whose tool is in neither the recorded nor the current config (nothing to decide with). */
  skipped: { callId: string; tool: string }[];
  mismatches: RecheckMismatch[];
  /** With `under: 'recorded'`: calls from before configurations were recorded, decided under today's. */
  unrecorded: number;
}

export interface RecheckOptions {
  /** The tools as configured today. */
  current: (name: string) => ToolDefinition | undefined;
  /**
   * `recorded` (default): each call under the configuration in force when it was decided, so a
   * mismatch is tampering or a bug. `current`: every call under today's, listing what would change.
   */
  under?: 'recorded' | 'current';
  /**
   * Hands the plugins the top-level settings a call was decided under (their config blocks), as a
   * reload does, so a plugin's rule decides with the block recorded then; `current` is today's.
   */
  plugins?: { configure(settings: Record<string, unknown>): Promise<void>; current: Record<string, unknown> };
}

interface Pending {
  seq: number;
  tool: string;
  rederived: string[];
  recorded: string[];
  outcome?: string;
}

/**
 * Re-derives every recorded shadow decision from the events before it: the rules' history folds
 * are replayed from the start of the log, and at each call the rules are asked again with the
 * state as it was when the call was decided, and the tools as configured then (`config.recorded`,
 * found through the writer that took the call) or today. A mismatch means the log and the rules
 * disagree: under the recorded config, an event was forged (or a rule's code changed); under
 * today's, what the config change would decide differently.
 */
export async function recheckDecisions(
  log: EventLog,
  rules: readonly ShadowRule[],
  options: RecheckOptions,
): Promise<RecheckReport> {
  const histories = new ReplayedHistories(rules);
  const calls = new Map<string, Pending>();
  const report: RecheckReport = { checked: 0, skipped: [], mismatches: [], unrecorded: 0 };
  const configs = new RulesInForce();
  const plugins = new PluginBlocks(options.plugins);
  const trees = new CallerCounts();
  for await (const raw of log.read()) {
    const event = upcast(raw);
    configs.see(event);
    if (event.type === 'call.requested') {
      const recorded = options.under === 'current' ? undefined : configs.configFor(event.data.writer);
      if (options.under !== 'current' && !recorded) report.unrecorded += 1;
      await plugins.use(recorded);
      const tools = recorded ? (name: string) => recorded.tools.get(name) : options.current;
      await rederive(
        log,
        event,
        rules,
        histories.states(),
        tools,
        calls,
        report,
        trees.started(event.data, tools(event.data.tool)),
      );
    }
    if (event.type === 'shadow.decided')
      calls.get(event.data.callId)?.recorded.push(`${event.data.rule}:${event.data.decision}`);
    histories.fold(raw);
  }
  await plugins.use(undefined);
  for (const [callId, call] of calls) {
    if (call.recorded.join() !== call.rederived.join() || call.outcome) report.mismatches.push({ callId, ...call });
  }
  report.checked = calls.size;
  return report;
}

/** The plugins' blocks in force: moved to a call's recorded settings, and back to today's. */
class PluginBlocks {
  private applied?: string;

  constructor(private readonly plugins: RecheckOptions['plugins']) {}

  async use(config: RecordedConfig | undefined): Promise<void> {
    const sha = config?.settings ? config.sha : 'current';
    if (!this.plugins || sha === this.applied) return;
    await this.plugins.configure(config?.settings ?? this.plugins.current);
    this.applied = sha;
  }
}

/**
 * The rules' history folds replayed from the log's first event by the fold the log itself runs
 * (`ProjectionSet`): a fold that throws is broken from that event on, as it was live, and its rule
 * fails as it did then.
 */
class ReplayedHistories {
  private readonly folds = new ProjectionSet();

  constructor(private readonly rules: readonly ShadowRule[]) {
    for (const rule of rules) if (rule.history) this.folds.register(rule.history);
    // Every fold starts from `init` at seq 0.
    this.folds.forget();
  }

  fold(event: Recorded): void {
    this.folds.apply([event]);
  }

  states(): RuleStates {
    const states: [ShadowRule, RuleState][] = [];
    for (const rule of this.rules) {
      const { history } = rule;
      if (history) states.push([rule, foldedState({ folded: () => this.folds.folded(history.name) })]);
    }
    return new Map(states);
  }
}

interface RecordedConfig {
  sha: string;
  tools: Map<string, ToolDefinition>;
  settings?: Record<string, unknown>;
}

/** Which recorded configuration each writer ran with, as the log tells it. */
class RulesInForce {
  private readonly configs = new Map<string, RecordedConfig>();
  private readonly byWriter = new Map<string, string>();
  private lastLoaded?: string;

  see(event: Recorded): void {
    if (event.type === 'config.recorded') {
      const tools = recordedTools(event.data.config);
      const settings = recordedSettings(event.data.config);
      if (tools) this.configs.set(event.data.sha, { sha: event.data.sha, tools, settings });
    } else if (event.type === 'writer.started' && event.data.configSha) {
      this.byWriter.set(event.data.writer, event.data.configSha);
    } else if (event.type === 'config.loaded' && event.data.configSha) {
      if (event.data.writer) this.byWriter.set(event.data.writer, event.data.configSha);
      this.lastLoaded = event.data.configSha;
    }
  }

  /** The writer's configuration; for a call with no writer, the one loaded last before it. */
  configFor(writer: string | undefined): RecordedConfig | undefined {
    const sha = (writer && this.byWriter.get(writer)) || this.lastLoaded;
    return sha === undefined ? undefined : this.configs.get(sha);
  }
}

async function rederive(
  log: EventLog,
  event: Recorded<'call.requested'>,
  rules: readonly ShadowRule[],
  states: RuleStates,
  tools: (name: string) => ToolDefinition | undefined,
  calls: Map<string, Pending>,
  report: RecheckReport,
  callers: CallerRun[],
): Promise<void> {
  const { callId, tool: name } = event.data;
  const own = await log.readCall(callId);
  const completed = own.find((e) => e.type === 'call.completed');
  const blockedBefore =
    completed?.type === 'call.completed' && ['unknown_tool', 'invalid'].includes(completed.data.blockedBy ?? '');
  if (blockedBefore) return;
  const tool = tools(name);
  if (!tool) {
    report.skipped.push({ callId, tool: name });
    return;
  }
  const coerced = own.find((e) => e.type === 'call.params_coerced');
  const params: Params = coerced?.type === 'call.params_coerced' ? coerced.data.coerced : event.data.params;
  const context: ShadowContext = {
    callId,
    tool,
    params,
    iface: event.data.iface,
    agentId: event.data.agentId,
    sessionId: event.data.sessionId,
    parentId: event.data.parentId,
    callers,
    fingerprint: fingerprintOf(name, params),
    sourceSha: event.data.sourceSha,
    now: Date.parse(event.at),
  };
  const decided = await decideChain(rules, context, states);
  const rederived = decided.map(({ rule, verdict }) => `${rule.name}:${verdict.decision}`);
  const outcome = outcomeContradiction(own, rederived.length > 0);
  calls.set(callId, { seq: event.seq, tool: name, rederived, recorded: [], ...(outcome ? { outcome } : {}) });
}

/** The runs above each call as the call tree counted them live (`ShadowContext.callers`), rebuilt from `call.requested` in log order. */
class CallerCounts {
  private readonly nodes = new Map<string, { tool?: ToolDefinition; parentId?: string; started: number }>();

  /** The callers of this call (whose tool, as configured then, is `tool`), nearest first; counts it under each of them. */
  started(data: { callId: string; parentId?: string }, tool: ToolDefinition | undefined): CallerRun[] {
    const callers: CallerRun[] = [];
    let id = data.parentId;
    while (id !== undefined) {
      const node = this.nodes.get(id);
      if (!node) break;
      if (node.tool) callers.push({ callId: id, tool: node.tool, innerCalls: node.started });
      node.started += 1;
      id = node.parentId;
    }
    this.nodes.set(data.callId, { tool, parentId: data.parentId, started: 0 });
    return callers;
  }
}
