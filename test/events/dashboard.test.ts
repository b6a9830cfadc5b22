import { describe, expect, it } from 'vitest';
import type { CallStatus } from '../../src/events/catalog.js';
import { dashboardFigures } from '../../src/events/dashboard-figures.js';
import { binOf, quantile } from '../../src/events/duration-histogram.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { fold } from '../../src/events/projection.js';
import { replay } from '../../src/events/replay.js';
import { registerAuditViews } from '../../src/events/audit-views.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { tempProject } from '../helpers/project.js';
import { join } from 'node:path';
import { dashboardProjection, DASHBOARD_RANGES, OTHER_REASONS } from '../../src/events/projections/dashboard.js';
import { sessionsProjection } from '../../src/events/projections/sessions.js';
import { eventsOf } from '../helpers/kernel.js';

const T0 = Date.parse('2026-11-30T10:00:00.000Z');
const MINUTE = 60_000;

/** A log whose clock the test sets, and a way to record whole calls on it. */
function timedLog() {
  let now = T0;
  const log = new MemoryEventLog(() => new Date(now));
  let next = 0;
  const call = async (
    at: number,
    tool: string,
    done?: { status: CallStatus | string; durationMs?: number; blockedBy?: string; error?: string },
    who: { agentId?: string; parentId?: string; rootId?: string; iface?: string } = {},
  ) => {
    now = at;
    const callId = `c${(next += 1)}`;
    await log.append([
      {
        type: 'call.requested',
        data: {
          callId,
          rootId: who.rootId ?? callId,
          parentId: who.parentId,
          tool,
          params: {},
          iface: who.iface ?? 'cli',
          agentId: who.agentId,
        },
      },
    ]);
    if (done) {
      now = at + (done.durationMs ?? 0);
      const status = done.status as CallStatus;
      await log.append([
        {
          type: 'call.completed',
          data: {
            callId,
            status,
            exitCode: status === 'success' ? 0 : 1,
            output: { text: '', bytes: 0, sha256: '', truncated: false },
            durationMs: done.durationMs ?? 0,
            blockedBy: done.blockedBy,
            error: done.error,
          },
        },
      ]);
    }
    return callId;
  };
  return { log, call, setNow: (at: number) => (now = at) };
}

describe('the dashboard projection', () => {
  it('counts each call in the step it was requested in, by status, tool and agent', async () => {
    const { log, call } = timedLog();
    await call(T0 + 5_000, 'say', { status: 'success', durationMs: 20 });
    await call(T0 + 10_000, 'say', { status: 'error', durationMs: 40 }, { agentId: 'agent-1' });
    await call(T0 + 2 * MINUTE, 'deploy', {
      status: 'blocked',
      blockedBy: 'deny',
      error: 'tool "deploy" is denied by shadow policy\nmore',
    });
    await call(T0 + 3 * MINUTE, 'slow');
    const state = await replay(log, dashboardProjection);
    const figures = dashboardFigures(state, '1h', T0 + 4 * MINUTE);
    expect(figures.timeline).toHaveLength(60);
    expect(figures.timeline.slice(-5).map((step) => step.statuses)).toEqual([
      { success: 1, error: 1 },
      {},
      { blocked: 1 },
      { running: 1 },
      {},
    ]);
    expect(figures.statuses).toEqual([
      { status: 'blocked', calls: 1 },
      { status: 'error', calls: 1 },
      { status: 'running', calls: 1 },
      { status: 'success', calls: 1 },
    ]);
    expect(figures.calls).toBe(4);
    expect(figures.tools).toEqual([
      { tool: 'say', calls: 2 },
      { tool: 'deploy', calls: 1 },
      { tool: 'slow', calls: 1 },
    ]);
    expect(figures.agents).toEqual([
      { agent: 'iface:cli', calls: 3 },
      { agent: 'agent-1', calls: 1 },
    ]);
    expect(figures.agentCount).toBe(1);
    expect(figures.blocked).toEqual([
      { rule: 'deny', calls: 1, reasons: [{ reason: 'tool "deploy" is denied by shadow policy', calls: 1 }] },
    ]);
    expect(figures.durations).toEqual([
      { tool: 'say', calls: 2, p50: expect.closeTo(20, 0), p95: expect.closeTo(40, 0) },
    ]);
  });

  it('counts a script’s inner calls for its root’s agent, and statuses it does not know under their own name', async () => {
    const { log, call } = timedLog();
    const root = await call(T0, 'script', undefined, { agentId: 'claude' });
    await call(T0 + 100, 'say', { status: 'success' }, { parentId: root, rootId: root, iface: 'code' });
    await call(T0 + 200, 'stuck', { status: 'interrupted' });
    const figures = dashboardFigures(await replay(log, dashboardProjection), '24h', T0 + MINUTE);
    expect(figures.agents).toEqual([
      { agent: 'claude', calls: 2 },
      { agent: 'iface:cli', calls: 1 },
    ]);
    expect(figures.statuses).toEqual([
      { status: 'interrupted', calls: 1 },
      { status: 'running', calls: 1 },
      { status: 'success', calls: 1 },
    ]);
  });

  it('reads percentiles from log bins within 4.5 %, merged across steps', async () => {
    const { log, call } = timedLog();
    // 1..100 ms, one per step of the 24 h range: p50 = 50, p95 = 95.
    for (let ms = 1; ms <= 100; ms += 1)
      await call(T0 + ms * 15 * MINUTE - 86_400_000, 'spread', { status: 'success', durationMs: ms });
    const figures = dashboardFigures(await replay(log, dashboardProjection), '7d', T0 + 60 * MINUTE);
    const [row] = figures.durations;
    expect(row.calls).toBe(100);
    expect(Math.abs(row.p50 - 50) / 50).toBeLessThan(0.045);
    expect(Math.abs(row.p95 - 95) / 95).toBeLessThan(0.045);
    expect(quantile(new Map([[binOf(0), 3]]), 0.5)).toBe(0);
    expect(quantile(new Map(), 0.5)).toBeUndefined();
  });

  it('drops steps a span behind the newest event, so the state stays bounded', async () => {
    const { log, call } = timedLog();
    for (let hour = 0; hour < 24 * 9; hour += 1)
      await call(T0 + hour * 3_600_000, 'tick', { status: 'success', durationMs: 1 });
    const state = await replay(log, dashboardProjection);
    for (const [range, { spanMs, stepMs }] of Object.entries(DASHBOARD_RANGES)) {
      expect(state.tiers[range as keyof typeof DASHBOARD_RANGES].size).toBeLessThanOrEqual(spanMs / stepMs + 1);
    }
    const latest = T0 + (24 * 9 - 1) * 3_600_000;
    expect(dashboardFigures(state, '7d', latest).calls).toBe(7 * 24);
    expect(dashboardFigures(state, '24h', latest).calls).toBe(24);
    expect(dashboardFigures(state, '1h', latest).calls).toBe(1);
    // A week later nothing is in range any more.
    expect(dashboardFigures(state, '7d', latest + 8 * 86_400_000).calls).toBe(0);
  });

  it('shows one row per rule whatever its reasons say, with the most frequent reasons; keeps at most 20 reasons per rule and step', async () => {
    const { log, call } = timedLog();
    for (let i = 0; i < 25; i += 1)
      await call(T0 + i, 'limited', {
        status: 'blocked',
        blockedBy: 'rate_limit',
        error: `limit reached, retry in ${i} s`,
      });
    const figures = dashboardFigures(await replay(log, dashboardProjection), '1h', T0);
    await call(T0 + 30, 'forbidden', { status: 'blocked', blockedBy: 'deny', error: 'denied' });
    expect(figures.blocked).toEqual([
      {
        rule: 'rate_limit',
        calls: 25,
        reasons: [
          { reason: OTHER_REASONS, calls: 5 },
          { reason: 'limit reached, retry in 0 s', calls: 1 },
          { reason: 'limit reached, retry in 1 s', calls: 1 },
        ],
      },
    ]);
    expect(dashboardFigures(await replay(log, dashboardProjection), '1h', T0).blocked.map((b) => b.rule)).toEqual([
      'rate_limit',
      'deny',
    ]);
    const state = await replay(log, dashboardProjection);
    expect([...state.tiers['1h'].values()][0].blocked.get('rate_limit')!.size).toBe(21);
  });

  it('kept by the log as calls are appended, equals the fold from scratch, read concurrently', async () => {
    const { log, call } = timedLog();
    const view = log.project(dashboardProjection);
    await call(T0, 'a', { status: 'success', durationMs: 3 });
    const running = await call(T0 + 1_000, 'b');
    expect((await view.current()).seq).toBe(3);
    await log.append([
      {
        type: 'call.completed',
        data: {
          callId: running,
          status: 'error',
          exitCode: 1,
          output: { text: '', bytes: 0, sha256: '', truncated: false },
          durationMs: 9,
        },
      },
    ]);
    await call(T0 + 2 * MINUTE, 'c', { status: 'blocked', blockedBy: 'invalid', error: 'bad' });
    const [first, second] = await Promise.all([view.current(), view.current()]);
    expect(second.seq).toBe(first.seq);
    expect(first.state).toEqual(fold(await eventsOf(log), dashboardProjection));
    expect(first.state.open.size).toBe(0);
  });

  it('persisted by every writer of an LMDB log: a process opening it later reads the same figures', async () => {
    const path = join(tempProject(), 'events.lmdb');
    const writer = new LmdbEventLog({ path });
    registerAuditViews(writer);
    for (let i = 0; i < 300; i += 1) {
      await writer.append([
        {
          type: 'call.requested',
          data: { callId: `c${i}`, rootId: `c${i}`, tool: `t${i % 7}`, params: {}, iface: 'cli' },
        },
        {
          type: 'call.completed',
          data: {
            callId: `c${i}`,
            status: i % 5 === 0 ? 'blocked' : 'success',
            exitCode: 0,
            output: { text: '', bytes: 0, sha256: '', truncated: false },
            durationMs: i,
          },
        },
      ]);
    }
    await writer.close();
    const reader = new LmdbEventLog({ path });
    registerAuditViews(reader);
    const kept = (await reader.project(dashboardProjection).current()).state;
    expect(kept).toEqual(fold(await eventsOf(reader), dashboardProjection));
    expect(dashboardFigures(kept, '1h', Date.now()).tools.reduce((n, tool) => n + tool.calls, 0)).toBe(300);
    await reader.close();
  });
});

describe('the sessions projection', () => {
  it('names each agent by the client its session introduced, the newest session winning', async () => {
    const log = new MemoryEventLog();
    await log.append([
      {
        type: 'session.opened',
        data: {
          sessionId: 's1',
          iface: 'mcp',
          agentId: 's1',
          client: { name: 'claude-code', version: '1.0.42' },
          transport: 'stdio',
        },
      },
      { type: 'session.opened', data: { sessionId: 's2', iface: 'mcp', agentId: 's2' } },
      { type: 'session.closed', data: { sessionId: 's1', iface: 'mcp' } },
      {
        type: 'session.opened',
        data: { sessionId: 's3', iface: 'mcp', agentId: 's2', client: { name: 'cursor', version: '' } },
      },
    ]);
    const agents = await replay(log, sessionsProjection);
    expect([...agents.keys()]).toEqual(['s1', 's2']);
    expect(agents.get('s1')).toMatchObject({
      sessionId: 's1',
      client: { name: 'claude-code', version: '1.0.42' },
      transport: 'stdio',
    });
    expect(agents.get('s2')).toMatchObject({ sessionId: 's3', client: { name: 'cursor', version: '' } });
  });
});
