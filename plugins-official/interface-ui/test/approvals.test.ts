import { describe, expect, it } from 'vitest';
import { MemoryEventLog } from 'factorly/events';
import type { NewEvent, Recorded } from 'factorly/events';
import { Approvals } from '../src/approvals.js';

const OUTPUT = { text: '', bytes: 0, sha256: '', truncated: false };
const WAITS_MS = 120_000;

function asked(callId: string, agentId?: string): NewEvent[] {
  return [
    {
      type: 'call.requested',
      data: { callId, rootId: callId, tool: 'deploy', params: { env: callId }, iface: 'mcp', agentId },
    },
    {
      type: 'shadow.decided',
      data: {
        callId,
        rule: 'confirm',
        plugin: 'shadow',
        decision: 'confirm',
        reason: 'tool "deploy" requires confirmation',
      },
    },
    { type: 'confirm.requested', data: { callId, channel: 'ui', timeoutMs: WAITS_MS } },
  ];
}

const endings: Record<string, (callId: string) => NewEvent> = {
  'answered elsewhere': (callId) => ({
    type: 'confirm.resolved',
    data: { callId, channel: 'cli-prompt', approved: true },
  }),
  'timed out': (callId) => ({ type: 'confirm.resolved', data: { callId, channel: 'timeout', approved: false } }),
  cancelled: (callId) => ({
    type: 'call.completed',
    data: { callId, status: 'cancelled', exitCode: 1, output: OUTPUT, durationMs: 5 },
  }),
  interrupted: (callId) => ({ type: 'call.interrupted', data: { callId, writer: 'w', reason: 'the process ended' } }),
};

async function folded(log: MemoryEventLog, approvals: Approvals, events: NewEvent[]): Promise<Recorded[]> {
  const recorded = await log.append(events);
  for (const event of recorded) await approvals.apply(event);
  return recorded;
}

describe('the approvals the UI shows', () => {
  it('holds a request with its agent, params and deadline (when it was asked, plus how long it waits)', async () => {
    const log = new MemoryEventLog();
    const approvals = new Approvals(log);
    const [, , request] = await folded(log, approvals, asked('c1', 'agent-1'));
    expect(approvals.list()).toEqual([
      expect.objectContaining({
        callId: 'c1',
        tool: 'deploy',
        params: { env: 'c1' },
        agentId: 'agent-1',
        reason: 'tool "deploy" requires confirmation',
        expiresAt: new Date(Date.parse(request.at) + WAITS_MS).toISOString(),
      }),
    ]);
  });

  for (const [how, ending] of Object.entries(endings))
    it(`lets go of a request whose call ended: ${how}`, async () => {
      const log = new MemoryEventLog();
      const approvals = new Approvals(log);
      let changes = 0;
      approvals.onChange(() => (changes += 1));
      await folded(log, approvals, [...asked('c1'), ...asked('c2')]);
      await folded(log, approvals, [ending('c1')]);
      expect(approvals.list().map((p) => p.callId)).toEqual(['c2']);
      expect(changes).toBe(3);
    });

  it('after a restart, brings back only what is still waiting', async () => {
    const log = new MemoryEventLog();
    await log.append([
      ...asked('c1'),
      ...asked('c2'),
      ...asked('c3'),
      endings.interrupted('c1'),
      endings.cancelled('c3'),
    ]);
    const approvals = new Approvals(log);
    await approvals.recover();
    expect(approvals.list().map((p) => p.callId)).toEqual(['c2']);
  });
});
