import type { Params } from '../events/catalog.js';
import type { Recorded } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { upcast } from '../events/upcast.js';
import type { ShadowContext, ShadowRule } from './contracts/extensions.js';
import type { ToolDefinition } from './contracts/tool.js';
import { BLOCKING, fingerprintOf } from './shadow-gate.js';
import { runRule } from './shadow-rule-run.js';

export interface RecheckMismatch {
  seq: number;
  callId: string;
  tool: string;
  recorded: string[];
  rederived: string[];
}

export interface RecheckReport {
  /** Calls that reached the shadow rules. */
  checked: number;
  /** Calls whose tool is not in the current config (nothing to decide with). */
  skipped: { callId: string; tool: string }[];
  mismatches: RecheckMismatch[];
}

interface Pending {
  seq: number;
  tool: string;
  rederived: string[];
  recorded: string[];
}

/**
 * Re-derives every recorded shadow decision from the events before it: the rules' history folds
 * are replayed from the start of the log, and at each call the rules are asked again with the
 * state as it was when the call was decided. A mismatch means the log and the rules disagree: a
 * rule or the config changed since, or an event was forged.
 */
export async function recheckDecisions(log: EventLog, rules: readonly ShadowRule[], tools: (name: string) => ToolDefinition | undefined): Promise<RecheckReport> {
  const states = new Map(rules.filter((rule) => rule.history).map((rule) => [rule, rule.history!.init()] as [ShadowRule, unknown]));
  const calls = new Map<string, Pending>();
  const report: RecheckReport = { checked: 0, skipped: [], mismatches: [] };
  for await (const raw of log.read()) {
    const event = upcast(raw);
    if (event.type === 'call.requested') await rederive(log, event, rules, states, tools, calls, report);
    if (event.type === 'shadow.decided') calls.get(event.data.callId)?.recorded.push(`${event.data.rule}:${event.data.decision}`);
    for (const [rule, state] of states) states.set(rule, rule.history!.evolve(state, event));
  }
  for (const [callId, call] of calls) {
    if (call.recorded.join() !== call.rederived.join()) report.mismatches.push({ callId, ...call });
  }
  report.checked = calls.size;
  return report;
}

async function rederive(
  log: EventLog,
  event: Recorded<'call.requested'>,
  rules: readonly ShadowRule[],
  states: Map<ShadowRule, unknown>,
  tools: (name: string) => ToolDefinition | undefined,
  calls: Map<string, Pending>,
  report: RecheckReport,
): Promise<void> {
  const { callId, tool: name } = event.data;
  const own = await log.readCall(callId);
  const completed = own.find((e) => e.type === 'call.completed');
  const blockedBefore = completed?.type === 'call.completed' && ['unknown_tool', 'invalid'].includes(completed.data.blockedBy ?? '');
  if (blockedBefore) return;
  const tool = tools(name);
  if (!tool) {
    report.skipped.push({ callId, tool: name });
    return;
  }
  const coerced = own.find((e) => e.type === 'call.params_coerced');
  const params: Params = coerced?.type === 'call.params_coerced' ? coerced.data.coerced : event.data.params;
  const context: ShadowContext = {
    callId, tool, params, iface: event.data.iface, agentId: event.data.agentId, sessionId: event.data.sessionId,
    parentId: event.data.parentId, fingerprint: fingerprintOf(name, params), now: Date.parse(event.at),
  };
  const rederived: string[] = [];
  for (const rule of rules) {
    const verdict = await runRule(rule, context, states.get(rule));
    if (!verdict) continue;
    rederived.push(`${rule.name}:${verdict.decision}`);
    if (BLOCKING.has(verdict.decision)) break;
  }
  calls.set(callId, { seq: event.seq, tool: name, rederived, recorded: [] });
}
