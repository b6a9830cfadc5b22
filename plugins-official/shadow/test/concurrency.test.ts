import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly';
import { LmdbEventLog, replay, verifyChain } from 'factorly/events';
import { startTestKernel } from 'factorly/testing';
import { tempProject } from '../../../test/helpers/project.js';
import { plugin as shadowPlugin } from '../src/plugin.js';
import { contribute } from './helpers.js';
import { loopProjection } from '../src/loop-rule.js';
import { bucketsProjection } from '../src/rate-limit-rule.js';

const WORKER = join(import.meta.dirname, 'fixtures', 'call-worker.mjs');
const YAML =
  'tools:\n  ping:\n    type: cli\n    command: echo\n    args: [pong]\n    shadow: {rate_limit: 10/min, scope: tool, loop: false}\n';

/** JSON with Maps as entry lists, as the workers print their state. */
const serialize = (value: unknown): string => JSON.stringify(value, (_, v: unknown) => (v instanceof Map ? [...v] : v));

interface Outcome {
  callId: string;
  status: string;
  error?: string;
}
interface Snapshot {
  seq: number;
  states: Record<string, unknown>;
}

/** Starts `processes` workers, releases them together, and collects their outcomes and live state. */
async function runWorkers(
  root: string,
  processes: number,
  calls: number,
): Promise<{ outcomes: Outcome[]; snapshots: Snapshot[] }> {
  const workers = Array.from({ length: processes }, () =>
    spawn(process.execPath, [WORKER, root, 'ping', String(calls)], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = workers.map((worker) => createInterface({ input: worker.stdout })[Symbol.asyncIterator]());
  for (const iterator of lines) expect((await iterator.next()).value).toBe('ready');
  for (const worker of workers) worker.stdin.end('go\n');
  const outcomes: Outcome[] = [];
  const snapshots: Snapshot[] = [];
  for (const iterator of lines) {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const parsed = JSON.parse(next.value) as { outcome?: Outcome; snapshot?: Snapshot };
      if (parsed.outcome) outcomes.push(parsed.outcome);
      if (parsed.snapshot) snapshots.push(parsed.snapshot);
    }
  }
  await Promise.all(
    workers.map(
      (worker) => new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(null))),
    ),
  );
  return { outcomes, snapshots };
}

describe('rate limits across processes', () => {
  it('four processes calling a 10/min tool 40 times at once: exactly 10 run, 30 are rate limited, and the log says why', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    const { outcomes, snapshots } = await runWorkers(root, 4, 10);
    expect(outcomes).toHaveLength(40);
    const succeeded = outcomes.filter((o) => o.status === 'success');
    const limited = outcomes.filter((o) => o.status === 'blocked');
    expect(succeeded).toHaveLength(10);
    expect(limited).toHaveLength(30);
    for (const o of limited)
      expect(o.error).toMatch(/^tool "ping" rate limited: 10\/min exceeded \(resets in (\d+s|1m)\)$/);

    const log = new LmdbEventLog({ path: join(root, '.factorly', 'events.lmdb') });
    try {
      for (const o of outcomes) {
        const events = await log.readCall(o.callId);
        const decided = events.filter((e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided');
        expect(decided).toHaveLength(1);
        expect(decided[0].data).toMatchObject({
          rule: 'rate-limit',
          decision: o.status === 'success' ? 'allow' : 'rate_limited',
        });
        if (o.status === 'blocked') expect(decided[0].data.reason).toBe(o.error);
        expect(events.at(-1)?.data).toMatchObject({ status: o.status });
      }
      // Each process's live state, folded incrementally while the others wrote, equals a replay from scratch.
      expect(snapshots).toHaveLength(4);
      for (const snapshot of snapshots) {
        const buckets = await replay(log, bucketsProjection, { to: snapshot.seq });
        const loops = await replay(log, loopProjection, { to: snapshot.seq });
        expect(snapshot.states['rate-limit']).toEqual(JSON.parse(serialize(buckets)));
        expect(snapshot.states['loop-detection']).toEqual(JSON.parse(serialize(loops)));
        expect(buckets.entries.get('tool:ping')?.items).toHaveLength(10);
      }
    } finally {
      await log.close();
    }
  });
});

describe('rate limits under concurrency in one process', () => {
  /** A third-party rule that answers with a promise: decisions cannot be retaken inside the write. */
  const asyncRule = contribute('async-rule', {
    rules: [
      { name: 'async-allow', order: 100, evaluate: async () => ({ decision: 'allow', reason: 'checked later' }) },
    ],
  });

  it.each([
    ['synchronous rules (decided again inside the write)', []],
    ['an async third-party rule (the append is retried instead)', [asyncRule]],
  ])(
    '64 concurrent calls to a 10/min tool on the LMDB log, with %s: exactly 10 run, and the live state equals a replay',
    async (_, extra) => {
      const { kernel, stop } = await startTestKernel(YAML, [shadowPlugin, ...extra], { log: 'project' });
      try {
        const outcomes = await Promise.all(
          Array.from({ length: 64 }, () => kernel.pipeline.call({ tool: 'ping', params: {}, iface: 'mcp' })),
        );
        expect(outcomes.filter((o) => o.status === 'success')).toHaveLength(10);
        expect(outcomes.filter((o) => o.status === 'blocked').map((o) => o.error)).toEqual(
          Array(54).fill(expect.stringMatching(/^tool "ping" rate limited: 10\/min exceeded/)),
        );
        const log = kernel.log();
        for (const o of outcomes) {
          const decided = (await log.readCall(o.callId)).filter(
            (e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided' && e.data.rule === 'rate-limit',
          );
          expect(decided.map((e) => e.data.decision)).toEqual([o.status === 'success' ? 'allow' : 'rate_limited']);
        }
        const live = await kernel.shadow.historySnapshot(log);
        expect(JSON.parse(serialize(live.states['rate-limit']))).toEqual(
          JSON.parse(serialize(await replay(log, bucketsProjection, { to: live.seq }))),
        );
        expect(JSON.parse(serialize(live.states['loop-detection']))).toEqual(
          JSON.parse(serialize(await replay(log, loopProjection, { to: live.seq }))),
        );
        expect((await verifyChain(log.read())).ok).toBe(true);
      } finally {
        await stop();
      }
    },
  );
});
