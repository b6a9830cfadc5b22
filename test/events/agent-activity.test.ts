import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerAuditViews } from '../../src/events/audit-views.js';
import type { NewEvent } from '../../src/events/envelope.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { fold } from '../../src/events/projection.js';
import { agentActivityProjection, OTHER_TOOLS } from '../../src/events/projections/agent-activity.js';
import { replay } from '../../src/events/replay.js';
import { eventsOf } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

const OUTPUT = { text: '', bytes: 0, sha256: '', truncated: false };

function requested(callId: string, tool: string, who: { agentId?: string; rootId?: string; iface?: string } = {}) {
  return {
    type: 'call.requested',
    data: { callId, rootId: who.rootId ?? callId, tool, params: {}, iface: who.iface ?? 'mcp', agentId: who.agentId },
  } satisfies NewEvent;
}

function completed(callId: string, status: 'success' | 'error' | 'blocked') {
  return {
    type: 'call.completed',
    data: { callId, status, exitCode: status === 'success' ? 0 : 1, output: OUTPUT, durationMs: 1 },
  } satisfies NewEvent;
}

function opened(sessionId: string, agentId: string) {
  return {
    type: 'session.opened',
    data: { sessionId, iface: 'mcp', agentId, client: { name: 'claude-code', version: '1.0.42' } },
  } satisfies NewEvent;
}

describe('the agent activity projection', () => {
  it('counts each agent’s sessions, calls by outcome and tools; a script’s inner calls count for its root’s agent', async () => {
    const log = new MemoryEventLog();
    await log.append([
      opened('s1', 'alice'),
      opened('s2', 'alice'),
      requested('a1', 'say', { agentId: 'alice' }),
      completed('a1', 'success'),
      requested('a2', 'script', { agentId: 'alice' }),
      requested('a3', 'say', { rootId: 'a2', iface: 'code' }),
      completed('a3', 'error'),
      completed('a2', 'success'),
      requested('a4', 'forbidden', { agentId: 'alice' }),
      completed('a4', 'blocked'),
      requested('c1', 'say', { iface: 'cli' }),
      { type: 'call.interrupted', data: { callId: 'c1', writer: 'w', reason: 'gone' } },
      requested('c2', 'slow', { iface: 'cli' }),
    ]);
    const { agents } = await replay(log, agentActivityProjection);
    expect([...agents.keys()]).toEqual(['alice', 'iface:cli']);
    expect(agents.get('alice')).toMatchObject({
      sessions: 2,
      calls: 4,
      statuses: new Map([
        ['success', 2],
        ['error', 1],
        ['blocked', 1],
      ]),
      tools: new Map([
        ['say', 2],
        ['script', 1],
        ['forbidden', 1],
      ]),
    });
    // One call ended unrecorded (its process died), one still runs.
    expect(agents.get('iface:cli')).toMatchObject({ sessions: 0, calls: 2, statuses: new Map([['interrupted', 1]]) });
  });

  it('keeps at most 100 tool names per agent, counting the rest together, and forgets calls open for over a week', async () => {
    let now = Date.parse('2026-11-30T10:00:00.000Z');
    const log = new MemoryEventLog(() => new Date(now));
    for (let i = 0; i < 105; i += 1) await log.append([requested(`u${i}`, `made-up-${i}`, { agentId: 'bot' })]);
    now += 8 * 86_400_000;
    await log.append([requested('late', 'say', { agentId: 'bot' })]);
    const state = await replay(log, agentActivityProjection);
    const bot = state.agents.get('bot')!;
    expect(bot.tools.size).toBe(101);
    expect(bot.tools.get(OTHER_TOOLS)).toBe(6);
    expect([...state.open.keys()]).toEqual(['late']);
  });

  it('is kept by every writer of an LMDB log: a process opening it later reads the fold from scratch', async () => {
    const path = join(tempProject(), 'events.lmdb');
    const writer = new LmdbEventLog({ path });
    registerAuditViews(writer);
    for (let i = 0; i < 50; i += 1)
      await writer.append([
        requested(`c${i}`, `t${i % 3}`, { agentId: `agent-${i % 4}` }),
        completed(`c${i}`, 'success'),
      ]);
    await writer.close();
    const reader = new LmdbEventLog({ path });
    registerAuditViews(reader);
    const kept = (await reader.project(agentActivityProjection).current()).state;
    expect(kept).toEqual(fold(await eventsOf(reader), agentActivityProjection));
    expect(kept.agents.get('agent-1')?.calls).toBe(13);
    await reader.close();
  });
});
