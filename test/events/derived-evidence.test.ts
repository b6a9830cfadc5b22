import { rmSync } from 'node:fs';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentCalls } from '../../src/events/audit-query.js';
import { registerAuditViews } from '../../src/events/audit-views.js';
import type { DerivedView } from '../../src/events/derived-views.js';
import type { Recorded } from '../../src/events/envelope.js';
import { LmdbDerived } from '../../src/events/lmdb-derived.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { dashboardProjection, type DashboardState } from '../../src/events/projections/dashboard.js';
import { replay } from '../../src/events/replay.js';
import type { LogStats } from '../../src/events/projections/stats.js';
import { snapshotDigest } from '../../src/events/snapshot-digest.js';
import { verifyLogFile } from '../../src/events/verify-log.js';
import { kernelViews } from '../../src/cli/verify-views.js';
import { startTestKernel, type TestKernel } from '../../src/testing/kernel.js';
import { editIndex, editSnapshot, logFile, rewriteFrom } from '../helpers/forger.js';
import { copyOfProject, makeProject, runCli, tempProject } from '../helpers/project.js';
import { byIface, ifaceIndex } from '../fixtures/guide/by-iface-plugin.js';

const TOOLS = `tools:
  hi: {type: cli, command: echo, args: ['{{n}}'], parameters: [{name: n}], shadow: {rate_limit: 12/min}}
  no: {type: cli, command: echo, args: ['{{n}}'], parameters: [{name: n}], shadow: {deny: true}}
`;

function kernelAt(root: string): Promise<TestKernel> {
  return startTestKernel(TOOLS, [], { root, log: 'project', official: ['provider-cli', 'shadow'] });
}

/**
 * One project, built once: 12 allowed calls of `hi` (its rate limit, 12/min, used up) and 4 denied
 * calls of `no`, the writer's snapshots saved when it stopped. Each test edits a copy of it, as
 * someone with write access to `.factorly/` could.
 */
let base: string;
/** What this project's writers keep: factorly's own projections and indexes, and the rules' histories. */
let views: DerivedView[];

beforeAll(async () => {
  base = makeProject();
  const k = await kernelAt(base);
  for (let i = 0; i < 12; i += 1) expect((await k.call('hi', { n: `a${i}` })).status).toBe('success');
  for (let i = 0; i < 4; i += 1) expect((await k.call('no', { n: `b${i}` })).status).toBe('blocked');
  views = kernelViews(k.kernel);
  await k.kernel.stop();
}, 60_000);

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const copy = (): string => copyOfProject(base);

async function withLog<T>(root: string, use: (log: LmdbEventLog) => Promise<T>): Promise<T> {
  const log = new LmdbEventLog({ path: logFile(root) });
  try {
    return await use(log);
  } finally {
    await log.close();
  }
}

/** `logs stats` as a reader gets it: the counters' projection, from its snapshot when one may be used. */
function statsOf(root: string): Promise<LogStats> {
  return withLog(root, async (log) => structuredClone((await registerAuditViews(log).current()).state));
}

async function eventsOf(root: string): Promise<Recorded[]> {
  return withLog(root, async (log) => {
    const events: Recorded[] = [];
    for await (const event of log.read()) events.push(event);
    return events;
  });
}

async function rebuilt(root: string): Promise<Recorded<'projection.rebuilt'>['data'][]> {
  return (await eventsOf(root))
    .filter((event): event is Recorded<'projection.rebuilt'> => event.type === 'projection.rebuilt')
    .map((event) => event.data);
}

function verify(root: string) {
  return verifyLogFile(logFile(root), { views });
}

function movedToSuccess(stats: LogStats): LogStats {
  stats.byStatus.success = (stats.byStatus.success ?? 0) + (stats.byStatus.blocked ?? 0);
  delete stats.byStatus.blocked;
  stats.blockedBy = Object.create(null) as Record<string, number>;
  return stats;
}

describe('derived state is evidence: a snapshot the chain does not vouch for is never used', () => {
  it('an intact project verifies, every snapshot re-folded and equal, every index checked', async () => {
    const report = await verify(base);
    expect(report.findings).toEqual([]);
    const verified = report.derived!.filter((check) => check.status === 'verified').map((check) => check.name);
    expect(verified).toEqual(
      expect.arrayContaining([
        'stats',
        'dashboard',
        'shadow.rate-limit.buckets',
        'shadow.loop.windows',
        'tool',
        'iface',
      ]),
    );
  });

  for (const consistent of [false, true]) {
    it(`stats with its blocked calls moved to success${consistent ? ', its own digest recomputed to match' : ''}: logs stats does not lie, the rebuild is recorded, verify names it`, async () => {
      const root = copy();
      await editSnapshot<LogStats>(root, 'stats', movedToSuccess, { consistent });
      const report = await verify(root);
      expect(report.ok).toBe(false);
      expect(report.findings).toEqual([
        expect.objectContaining({
          kind: 'derived',
          where: 'stats',
          reason: expect.stringContaining('not vouched for'),
        }),
      ]);
      expect((await statsOf(root)).byStatus).toMatchObject({ success: 12, blocked: 4 });
      expect(await rebuilt(root)).toEqual([
        expect.objectContaining({
          name: 'stats',
          kind: 'projection',
          reason: consistent
            ? expect.stringContaining('not the one the log recorded')
            : 'its state does not match its digest',
        }),
      ]);
      // The reader replaced the snapshot it refused: the next one starts from a snapshot again, and verify passes.
      expect((await verify(root)).findings).toEqual([]);
      expect(await rebuilt(root)).toHaveLength(1);
    });
  }

  it('emptied rate-limit buckets (digest recomputed) do not let calls over the limit run', async () => {
    const root = copy();
    await editSnapshot<{ entries: Map<string, unknown> }>(
      root,
      'shadow.rate-limit.buckets',
      (buckets) => {
        buckets.entries.clear();
        return buckets;
      },
      { consistent: true },
    );
    expect((await verify(root)).findings).toEqual([
      expect.objectContaining({ kind: 'derived', where: 'shadow.rate-limit.buckets' }),
    ]);
    const k = await kernelAt(root);
    try {
      const outcomes = [];
      for (let i = 0; i < 3; i += 1) outcomes.push(await k.call('hi', { n: `c${i}` }));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['blocked', 'blocked', 'blocked']);
      expect(outcomes[0]!.error).toContain('rate limited');
    } finally {
      await k.kernel.stop();
    }
    expect(await rebuilt(root)).toEqual([expect.objectContaining({ name: 'shadow.rate-limit.buckets' })]);
  });

  it('an edited dashboard snapshot is not used, and verify names it', async () => {
    const root = copy();
    const dashboard = (log: LmdbEventLog) => {
      registerAuditViews(log);
      return log.project(dashboardProjection).current();
    };
    await editSnapshot<DashboardState>(root, 'dashboard', (state) => {
      for (const tier of Object.values(state.tiers)) for (const bucket of tier.values()) bucket.statuses.clear();
      return state;
    });
    expect((await verify(root)).findings).toEqual([expect.objectContaining({ kind: 'derived', where: 'dashboard' })]);
    const { seq, state } = await withLog(root, dashboard);
    expect(state).toEqual(await withLog(root, (log) => replay(log, dashboardProjection, { to: seq })));
    expect(await rebuilt(root)).toEqual([expect.objectContaining({ name: 'dashboard' })]);
  });

  it('a snapshot and its record rewritten consistently with the chain: verify re-folds it and names the projection', async () => {
    const root = copy();
    const stored = await withLog(root, async () => {
      const env = open({ path: logFile(root), compression: false, readOnly: true });
      const snapshot = new LmdbDerived(env).loadSnapshot('stats')!;
      await env.close();
      return snapshot;
    });
    const forged = await editSnapshot<LogStats>(root, 'stats', movedToSuccess, { consistent: true });
    const snapshots = await withLog(root, async () => {
      const env = open({ path: logFile(root), compression: false, readOnly: true });
      const derived = new LmdbDerived(env);
      const all = derived.snapshotNames().map((name) => [name, derived.loadSnapshot(name)!] as const);
      await env.close();
      return all;
    });
    // The log's own record rewritten to name the forged digest, and every event after it sealed again.
    await rewriteFrom(root, stored.recorded, (event) =>
      event.seq === stored.recorded && event.type === 'projection.saved'
        ? {
            ...event,
            data: {
              snapshots: event.data.snapshots.map((entry) =>
                entry.name === 'stats' ? { ...entry, digest: forged.digest } : entry,
              ),
            },
          }
        : event,
    );
    const env = open({ path: logFile(root), compression: false });
    const derived = new LmdbDerived(env);
    await env.transaction(() => {
      for (const [name, snapshot] of snapshots) derived.saveSnapshot(name, snapshot);
    });
    await env.close();
    expect(snapshotDigest('stats', forged)).toBe(forged.digest);
    const report = await verify(root);
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        kind: 'derived',
        where: 'stats',
        reason: `the snapshot of stats at seq ${forged.seq} differs from the fold of events 1–${forged.seq}`,
      }),
    );
  });
});

describe('derived state is evidence: an index hit is checked against its event', () => {
  it('an index entry pointing to another call is never answered, the index is rebuilt and verify names it', async () => {
    const root = copy();
    const events = await eventsOf(root);
    const denied = events.find((event) => event.type === 'call.requested' && event.data.tool === 'no')!;
    await editIndex(root, (entries) => entries.putSync(['tool', 'hi'], denied.seq));
    expect((await verify(root)).findings).toEqual([expect.objectContaining({ kind: 'index', where: 'tool' })]);
    const calls = await withLog(root, async (log) => {
      registerAuditViews(log);
      return recentCalls(log, { tool: 'hi' }, 100);
    });
    expect(calls.map((call) => call.tool)).toEqual(Array(12).fill('hi'));
    expect(await rebuilt(root)).toEqual([
      expect.objectContaining({ name: 'tool', kind: 'index', reason: expect.stringContaining(`seq ${denied.seq}`) }),
    ]);
    // The writer that recorded it indexed the log again.
    expect((await verify(root)).findings).toEqual([]);
  });

  it('an interface index entry naming a call of another interface is never answered, and verify names it', async () => {
    const root = copy();
    const requested = (await eventsOf(root)).find((event) => event.type === 'call.requested')!;
    const other = requested.data.iface === 'cli' ? 'mcp' : 'cli';
    await editIndex(root, (entries) => entries.putSync(['iface', other], requested.seq));
    expect((await verify(root)).findings).toEqual([expect.objectContaining({ kind: 'index', where: 'iface' })]);
    const calls = await withLog(root, async (log) => {
      registerAuditViews(log);
      return recentCalls(log, { iface: other }, 100);
    });
    expect(calls.map((call) => call.callId)).not.toContain(requested.data.callId);
    expect(await rebuilt(root)).toEqual([expect.objectContaining({ name: 'iface', kind: 'index' })]);
  });

  it("logs verify (the CLI) re-folds the rules' histories too, and exits 1 naming a projection that differs", async () => {
    const root = copy();
    // Snapshots made by the CLI's own code (the compiled one), so it can compare them.
    expect(runCli(['logs', 'rebuild'], root).status).toBe(0);
    const intact = runCli(['logs', 'verify'], root);
    expect(intact).toMatchObject({ status: 0, stderr: '' });
    expect(intact.stdout).toMatch(
      /^Snapshots: \d+ equal to the fold of the events \(.*shadow\.rate-limit\.buckets.*stats\)$/m,
    );
    expect(intact.stdout).toContain('Indexes: 4 equal to what the events call for (tool, agent, status, iface)');
    await editSnapshot<LogStats>(root, 'stats', movedToSuccess, { consistent: true });
    const tampered = runCli(['logs', 'verify'], root);
    expect(tampered.status).toBe(1);
    expect(tampered.stderr).toMatch(
      /^Tampered \(derived\) \[stats\]: the snapshot of stats \(seq \d+\) is not vouched for: its digest is not the one the log recorded at seq \d+$/m,
    );
  });
});

describe("a plugin's own derived state (registrar.index, registrar.projection) is kept and verified like factorly's", () => {
  it('is kept by every write, checked by verify, and an edited entry is named', async () => {
    const root = tempProject();
    const k = await startTestKernel(TOOLS, [byIface], { root, log: 'project', official: ['provider-cli', 'shadow'] });
    for (let i = 0; i < 10; i += 1) await k.call('hi', { n: `p${i}` }, i % 2 ? 'mcp' : 'cli');
    const lookup = k.log.lookup!(ifaceIndex.name, 'mcp');
    expect([...lookup.seqs]).toHaveLength(5);
    const pluginViews = kernelViews(k.kernel);
    await k.kernel.stop();
    const report = await verifyLogFile(logFile(root), { views: pluginViews });
    expect(report.findings).toEqual([]);
    expect(report.derived).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'by-iface.iface', kind: 'index', status: 'verified' }),
        expect.objectContaining({ name: 'by-iface.counts', kind: 'projection', status: 'verified' }),
      ]),
    );
    const requested = (await eventsOf(root)).find((event) => event.type === 'call.requested')!;
    await editIndex(root, (entries) => entries.putSync([ifaceIndex.name, 'ui'], requested.seq));
    expect((await verifyLogFile(logFile(root), { views: pluginViews })).findings).toEqual([
      expect.objectContaining({ kind: 'index', where: 'by-iface.iface', seq: requested.seq }),
    ]);
  });
});
