import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from 'factorly';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/helpers/eventually.js';
import { REPO } from '../../../test/helpers/project.js';
import { ProcessPool } from '../src/process-pool.js';

const BUDGET = { timeoutMs: 10_000, memoryBytes: 32 * 1024 * 1024 };
const host = {
  async call(fn: string, args: JsonValue): Promise<JsonValue> {
    return { fn, args };
  },
};
const pools: ProcessPool[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop();
});

/** This test process's children (Linux): the engine processes its pools started, alive or not yet reaped. */
function childPids(): number[] {
  return readdirSync(`/proc/${process.pid}/task`)
    .flatMap((task) => readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim().split(' '))
    .filter(Boolean)
    .map(Number);
}

function crashyPool(): ProcessPool {
  const pool = new ProcessPool({
    name: 'crashy',
    script: join(REPO, 'test', 'fixtures', 'crashy-engine-child.mjs'),
    maxChildren: 2,
  });
  pools.push(pool);
  return pool;
}

describe('ProcessPool', () => {
  it('reports an engine process that dies mid-run as exit 2 and serves the next run from a new process', async () => {
    const pool = crashyPool();
    expect(await pool.run('hello', {}, host, BUDGET)).toMatchObject({ exitCode: 0, value: 'hello', logs: ['ran'] });
    expect(await pool.run('crash', {}, host, BUDGET)).toMatchObject({
      exitCode: 2,
      error: 'the crashy engine crashed (exited with code 3); the run was stopped',
    });
    expect(await pool.run('again', {}, host, BUDGET)).toMatchObject({ exitCode: 0, value: 'again' });
  });

  it('starts a child ahead of a run it is told is coming; the run takes it, ready or still starting', async () => {
    const before = childPids();
    const pool = crashyPool();
    pool.warm();
    pool.warm(); // one is starting already: no second
    const starting = childPids().filter((pid) => !before.includes(pid));
    expect(starting).toHaveLength(1);
    // Run at once: the child started ahead is still starting, and the run takes it rather than start its own.
    expect((await pool.run('pid', {}, host, BUDGET)).value).toBe(String(starting[0]));

    const warmed = crashyPool();
    const beforeWarm = childPids();
    warmed.warm();
    const [started] = await eventually(() => {
      const pids = childPids().filter((pid) => !beforeWarm.includes(pid));
      expect(pids).toHaveLength(1);
      return pids;
    });
    expect((await warmed.run('pid', {}, host, BUDGET)).value).toBe(String(started));
  });

  it('relays host calls and counts them', async () => {
    const result = await crashyPool().run('call', { a: 1 }, host, BUDGET);
    expect(result).toMatchObject({ exitCode: 0, value: JSON.stringify({ fn: 'echo', args: { a: 1 } }) });
    expect(result.usage.hostCalls).toBe(1);
  });

  it('queues runs beyond maxChildren instead of failing them', async () => {
    const pool = crashyPool();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => pool.run(`run ${i}`, {}, host, BUDGET)));
    expect(results.map((r) => r.value)).toEqual(['run 0', 'run 1', 'run 2', 'run 3', 'run 4']);
  });

  it('never queues a nested run behind maxChildren; past maxNestedChildren it refuses one at once', async () => {
    const pool = new ProcessPool({
      name: 'crashy',
      script: join(REPO, 'test', 'fixtures', 'crashy-engine-child.mjs'),
      maxChildren: 1,
      maxNestedChildren: 2,
      spare: 0,
    });
    pools.push(pool);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = {
      async call(): Promise<JsonValue> {
        await held;
        return 'released';
      },
    };
    const outer = pool.run('call', {}, holding, BUDGET);
    const middle = pool.run('call', {}, holding, { ...BUDGET, nested: true });
    expect(await pool.run('inner', {}, host, { ...BUDGET, nested: true })).toMatchObject({
      exitCode: 2,
      error:
        'the crashy engine already runs 2 scripts; this nested script was refused rather than wait for one to end (its caller holds one)',
    });
    release();
    expect((await Promise.all([outer, middle])).map((r) => r.exitCode)).toEqual([0, 0]);
  });
});
