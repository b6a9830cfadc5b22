import { join } from 'node:path';
import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { FactorlyError } from '../../src/base/errors.js';
import { completed, requested } from '../../src/testing/contracts/event-log.js';
import { rfcRoot } from '../helpers/rfc9162.js';
import { tempProject } from '../helpers/project.js';

async function filled(path: string, calls: number): Promise<void> {
  const log = new LmdbEventLog({ path });
  for (let i = 0; i < calls; i += 1) await log.append([requested(`c${i}`), completed(`c${i}`)]);
  await log.close();
}

async function chainLeaves(log: LmdbEventLog): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const event of log.read()) out.push(Buffer.from(event.hash, 'hex'));
  return out;
}

/** Raw LMDB access to the file, as a log written before trees existed (or an attacker) would leave it. */
async function raw(path: string, change: (env: ReturnType<typeof open>) => void): Promise<void> {
  const env = open({ path, compression: false });
  change(env);
  await env.close();
}

describe('the LMDB log keeps its Merkle tree in its own database', () => {
  it('stays the tree of every event when appends share a transaction and two writers take turns', async () => {
    const path = join(tempProject(), 'events.lmdb');
    // Two logs on one file stand for two processes: each remembers the right edge its own last append left.
    const [a, b] = [new LmdbEventLog({ path, durability: 'commit' }), new LmdbEventLog({ path, durability: 'commit' })];
    for (let round = 0; round < 6; round += 1) {
      const writer = round % 3 === 2 ? b : a;
      // Started together, batched by lmdb-js into shared transactions.
      await Promise.all(Array.from({ length: 5 + round }, (_, i) => writer.append([requested(`r${round}-${i}`)])));
      for (const log of [a, b]) expect((await log.tree()).root().equals(rfcRoot(await chainLeaves(log)))).toBe(true);
    }
    // Strict turns: each append follows the other writer's, at the size this writer's own last append left plus one.
    for (let i = 0; i < 20; i += 1) await (i % 2 === 0 ? a : b).append([requested(`turn-${i}`)]);
    await Promise.all([a.close(), b.close()]);
    // The stored tree itself (what a read without a fallback uses) covers every event and proves them.
    let stored: { size?: number } = {};
    await raw(path, (env) => {
      stored = JSON.parse((env.openDB({ name: 'tree', encoding: 'binary' }).get(0) as Buffer).toString('utf8'));
    });
    expect(stored.size).toBe(5 + 6 + 7 + 8 + 9 + 10 + 20);
    const reopened = new LmdbEventLog({ path });
    expect((await reopened.tree()).root().equals(rfcRoot(await chainLeaves(reopened)))).toBe(true);
    await reopened.close();
  });

  it('catches up a log that has no tree on its next append, and keeps the origin afterwards', async () => {
    const path = join(tempProject(), 'events.lmdb');
    await filled(path, 20);
    await raw(path, (env) => env.openDB({ name: 'tree', encoding: 'binary' }).dropSync());
    const log = new LmdbEventLog({ path });
    // Without a stored tree, the tree is rebuilt in memory for reading.
    expect((await log.tree()).root().equals(rfcRoot(await chainLeaves(log)))).toBe(true);
    await log.append([requested('after')]);
    const tree = await log.tree();
    expect(tree.size).toBe(41);
    expect(tree.root().equals(rfcRoot(await chainLeaves(log)))).toBe(true);
    await log.append([completed('after')]);
    expect((await log.tree()).origin).toBe(tree.origin);
    await log.close();
  });

  it('refuses to open for writing a log whose events stop before its head record and tree do (events were cut)', async () => {
    const path = join(tempProject(), 'events.lmdb');
    await filled(path, 5);
    await raw(path, (env) => {
      const events = env.openDB({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' });
      events.removeSync(10);
      events.removeSync(9);
    });
    // The O(1) check at open (the head record against the last event) refuses it before any append.
    const error = (() => {
      try {
        return new LmdbEventLog({ path });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(FactorlyError.isInstance(error) && error.code).toBe('LOG_UNREADABLE');
    expect((error as Error).message).toContain(
      `the event log ${path} is damaged: it ends at seq 8 but its head record says 10`,
    );
    // Nothing was written over the evidence: the next open (read-only too) finds the same cut.
    expect(() => new LmdbEventLog({ path, readOnly: true })).toThrow('it ends at seq 8 but its head record says 10');
  });

  it('opens read-only, reads and proves, and refuses appends', async () => {
    const path = join(tempProject(), 'events.lmdb');
    await filled(path, 3);
    const log = new LmdbEventLog({ path, readOnly: true });
    expect((await log.tree()).root().equals(rfcRoot(await chainLeaves(log)))).toBe(true);
    await expect(log.append([requested('x')])).rejects.toThrow();
    await log.close();
  });
});
