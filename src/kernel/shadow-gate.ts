import type { Decision } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { messageOf } from './base/errors.js';
import type { ConfirmChannel, ShadowContext, ShadowRule } from './contracts/extensions.js';
import type { OrderedSlot } from './slots.js';

export type GateResult = { blocked: false } | { blocked: true; rule: string; reason: string };

const BLOCKING: ReadonlySet<Decision> = new Set(['deny', 'rate_limited', 'loop_blocked', 'invalid']);

/**
 * Runs the shadow rules in order and records each decision. A rule that throws denies the call
 * (fail closed). `confirm` asks the confirm channels; with none installed the call is denied.
 */
export class ShadowGate {
  constructor(
    private readonly rules: OrderedSlot<ShadowRule>,
    private readonly channels: OrderedSlot<ConfirmChannel>,
  ) {}

  async check(log: EventLog, context: ShadowContext): Promise<GateResult> {
    for (const rule of this.rules.list()) {
      const plugin = this.rules.ownerOf(rule) ?? 'unknown';
      const verdict = await rule.evaluate(context).catch((error: unknown) => ({
        decision: 'deny' as const,
        reason: `rule "${rule.name}" failed (failing closed): ${messageOf(error)}`,
      }));
      const decided: NewEvent = { type: 'shadow.decided', data: { callId: context.callId, rule: rule.name, plugin, decision: verdict.decision, reason: verdict.reason } };
      await log.append([decided]);
      if (BLOCKING.has(verdict.decision)) return { blocked: true, rule: verdict.decision, reason: verdict.reason };
      if (verdict.decision === 'confirm') {
        const approved = await this.confirm(log, context, verdict.reason);
        if (!approved.ok) return { blocked: true, rule: 'confirm', reason: approved.reason };
      }
    }
    return { blocked: false };
  }

  private async confirm(log: EventLog, context: ShadowContext, reason: string): Promise<{ ok: boolean; reason: string }> {
    const [channel] = this.channels.list();
    if (!channel) return { ok: false, reason: `tool "${context.tool.name}" requires confirmation but no confirm channel is available` };
    await log.append([{ type: 'confirm.requested', data: { callId: context.callId, channel: channel.name } }]);
    const answer = await channel
      .ask({ callId: context.callId, tool: context.tool.name, params: context.params, agentId: context.agentId, reason }, AbortSignal.timeout(60_000))
      .catch(() => ({ approved: false, by: undefined }));
    await log.append([{ type: 'confirm.resolved', data: { callId: context.callId, channel: channel.name, approved: answer.approved, by: answer.by } }]);
    return answer.approved ? { ok: true, reason } : { ok: false, reason: `tool "${context.tool.name}": confirmation declined` };
  }
}
