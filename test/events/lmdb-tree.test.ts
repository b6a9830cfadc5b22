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

  it('refuses to append to a log whose events stop before its tree does (events were cut)', async () => {
    const path = join(tempProject(), 'events.lmdb');
    await filled(path, 5);
    await raw(path, (env) => {
      const events = env.openDB({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' });
      events.removeSync(10);
      events.removeSync(9);
    });
    const log = new LmdbEventLog({ path });
    const error = await log.append([requested('x')]).catch((e: unknown) => e);
    expect(FactorlyError.isInstance(error) && error.code).toBe('LOG_CORRUPT');
    expect((error as Error).message).toBe(
      "the event log's Merkle tree covers 10 events but the log ends at seq 8: events were removed (run factorly logs verify)",
    );
    expect((await log.head()).seq).toBe(8);
    await log.close();
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
