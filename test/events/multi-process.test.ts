import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { verifyChain } from '../../src/events/verify.js';
import { REPO, tempProject } from '../helpers/project.js';
import { rfcRoot } from '../helpers/rfc9162.js';

function runNode(args: string[]): Promise<number | null> {
  return new Promise((resolve) => spawn(process.execPath, args, { stdio: 'inherit' }).on('exit', resolve));
}

async function readAll(path: string): Promise<Recorded[]> {
  const log = new LmdbEventLog({ path });
  const events: Recorded[] = [];
  for await (const event of log.read()) events.push(event);
  const report = await verifyChain(log.read());
  // Every writer extended the Merkle tree inside its own append: it covers exactly the chain.
  const tree = await log.tree();
  const [size, root] = [tree.size, tree.root()];
  await log.close();
  expect(report).toEqual({ ok: true, verified: events.length });
  expect(size).toBe(events.length);
  expect(root.equals(rfcRoot(events.map((e) => Buffer.from(e.hash, 'hex'))))).toBe(true);
  return events;
}

describe('LMDB log shared by several processes', () => {
  it(
    'loses nothing another process appends while this one opens and closes the log again and again',
    { timeout: 60_000 },
    async () => {
      const path = join(tempProject(), 'events.lmdb');
      let exitCode: number | null | undefined;
      const writer = spawn(
        process.execPath,
        [join(REPO, 'test', 'fixtures', 'append-worker.mjs'), path, 'steady', '3000'],
        { stdio: 'inherit' },
      );
      const exited = new Promise((resolve) => writer.on('exit', (code) => resolve((exitCode = code))));
      let reopened = 0;
      while (exitCode === undefined) {
        const log = new LmdbEventLog({ path });
        await log.head();
        await log.close();
        reopened += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await exited;
      expect(exitCode).toBe(0);
      expect(reopened).toBeGreaterThan(1);
      expect(await readAll(path)).toHaveLength(3000);
    },
  );

  it('four processes appending at once leave a gap-free, duplicate-free, verifiable chain', async () => {
    const path = join(tempProject(), 'events.lmdb');
    const worker = join(REPO, 'test', 'fixtures', 'append-worker.mjs');
    const codes = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((w) => runNode([worker, path, w, '500'])));
    expect(codes).toEqual([0, 0, 0, 0]);
    const events = await readAll(path);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const callIds = events.map((e) => (e.data as { callId: string }).callId);
    expect(new Set(callIds).size).toBe(2000);
    for (const w of ['w1', 'w2', 'w3', 'w4']) {
      const own = callIds.filter((id) => id.startsWith(`${w}-`)).map((id) => Number(id.split('-')[1]));
      expect(own).toEqual(Array.from({ length: 500 }, (_, i) => i));
    }
  });

  it('a process killed with SIGKILL mid-burst leaves a log that reopens, verifies and holds every returned call', async () => {
    const root = tempProject({
      '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: ["{{n}}"]}\n',
    });
    const child = spawn(process.execPath, [join(REPO, 'test', 'fixtures', 'call-burst.mjs'), root], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.split('\n').length > 60) resolve();
      });
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const returned = printed.split('\n').slice(0, -1);
    const events = await readAll(join(root, '.factorly', 'events.lmdb'));
    const completed = new Set(
      events.filter((e) => e.type === 'call.completed').map((e) => (e.data as { callId: string }).callId),
    );
    expect(returned.length).toBeGreaterThanOrEqual(60);
    for (const callId of returned) expect(completed.has(callId)).toBe(true);
    // The log also still accepts appends after the crash.
    const log = new LmdbEventLog({ path: join(root, '.factorly', 'events.lmdb') });
    const [next] = await log.append([
      { type: 'call.requested', data: { callId: 'after', rootId: 'after', tool: 'hi', params: {}, iface: 'cli' } },
    ]);
    expect(next.seq).toBe(events.length + 1);
    await log.close();
  });
});
