import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import fc from 'fast-check';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import { AUDIT_INDEXES } from '../../src/events/event-index.js';
import { LmdbDerived } from '../../src/events/lmdb-derived.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import type { Projection } from '../../src/events/projection.js';
import { replay } from '../../src/events/replay.js';
import { statsProjection } from '../../src/events/projections/stats.js';
import { verifyChain } from '../../src/events/verify.js';
import { REPO } from '../helpers/project.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'factorly-proj-'));
  dirs.push(dir);
  return join(dir, 'events.lmdb');
}

/** Every seq folded, in order: a fold that skips or repeats an event shows at once. */
const seqsProjection: Projection<number[]> = {
  name: 'test.seqs',
  init: () => [],
  evolve: (seqs, event) => {
    seqs.push(event.seq);
    return seqs;
  },
};

/** Calls per tool in a Map, as the rules' windows keep theirs (the snapshot must restore a Map). */
const toolCountsProjection: Projection<Map<string, number>> = {
  name: 'test.tool-counts',
  init: () => new Map(),
  evolve: (counts, event) =>
    event.type === 'call.requested' ? counts.set(event.data.tool, (counts.get(event.data.tool) ?? 0) + 1) : counts,
};

const PROJECTIONS = [statsProjection, seqsProjection, toolCountsProjection] as Projection<unknown>[];

/** A log as a writer of factorly opens it: every projection and audit index registered. */
function openRegistered(path: string): LmdbEventLog {
  const log = new LmdbEventLog({ path });
  for (const projection of PROJECTIONS) log.project(projection);
  for (const index of AUDIT_INDEXES) log.index(index);
  return log;
}

async function all(log: LmdbEventLog): Promise<Recorded[]> {
  const events: Recorded[] = [];
  for await (const event of log.read()) events.push(event);
  return events;
}

/** Every stored snapshot equals the fold from scratch up to the seq it is stamped with. */
async function expectSnapshotsExact(path: string, log: LmdbEventLog): Promise<number> {
  const root = open({ path, compression: false });
  const derived = new LmdbDerived(root);
  let checked = 0;
  try {
    for (const projection of PROJECTIONS) {
      const snapshot = derived.loadSnapshot(projection.name);
      if (!snapshot) continue;
      expect(deserialize(snapshot.state)).toEqual(await replay(log, projection, { to: snapshot.seq }));
      checked += 1;
    }
  } finally {
    await root.close();
  }
  return checked;
}

/** A fresh reader folds to the head and equals the fold from scratch; the indexes hold exactly the matching seqs. */
async function expectFoldsExact(path: string): Promise<void> {
  const log = openRegistered(path);
  try {
    const events = await all(log);
    for (const projection of PROJECTIONS) {
      const { seq, state } = await log.project(projection).current();
      expect(seq).toBe(events.length);
      expect(state).toEqual(await replay(log, projection));
    }
    const { covered } = log.lookup('tool', 'none');
    for (const tool of new Set(events.flatMap((e) => (e.type === 'call.requested' ? [e.data.tool] : [])))) {
      const expected = events
        .filter((e) => e.type === 'call.requested' && e.data.tool === tool && e.seq <= covered)
        .map((e) => e.seq)
        .reverse();
      expect([...log.lookup('tool', tool).seqs]).toEqual(expected);
    }
  } finally {
    await log.close();
  }
}

const eventArb: fc.Arbitrary<NewEvent> = fc.oneof(
  fc
    .record({ callId: fc.uuid(), tool: fc.constantFrom('a', 'b.c', 'é', 'rare') })
    .map(({ callId, tool }): NewEvent => ({
      type: 'call.requested',
      data: { callId, rootId: callId, tool, params: { n: 1 }, iface: 'cli', agentId: 'x' },
    })),
  fc
    .record({ callId: fc.uuid(), status: fc.constantFrom('success', 'error', 'blocked') })
    .map(({ callId, status }): NewEvent => ({
      type: 'call.completed',
      data: {
        callId,
        status: status as 'success',
        exitCode: 0,
        output: { text: '', bytes: 0, sha256: 'x', truncated: false },
        durationMs: 1,
        ...(status === 'blocked' ? { blockedBy: 'deny' } : {}),
      },
    })),
  fc.constantFrom<NewEvent>({ type: 'vault.accessed', data: { op: 'get', key: 'k', tier: 'project' } }),
);

/** One step of a history: a writer (one of three "processes") appends a batch, or closes and reopens. */
const stepArb = fc.record({
  writer: fc.integer({ min: 0, max: 2 }),
  batch: fc.array(eventArb, { minLength: 1, maxLength: 60 }),
  reopen: fc.boolean(),
});

describe('persisted projections', () => {
  it('after any history of appends by several writers, each snapshot equals the fold from scratch up to its seq, and a fresh reader equals the full fold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 14 }), async (steps) => {
        const path = tempLog();
        const writers = [0, 1, 2].map(() => openRegistered(path));
        try {
          for (const step of steps) {
            await writers[step.writer].append(step.batch);
            if (step.reopen) {
              await writers[step.writer].close();
              writers[step.writer] = openRegistered(path);
            }
          }
        } finally {
          await Promise.all(writers.map((log) => log.close()));
        }
        const reader = new LmdbEventLog({ path });
        try {
          await expectSnapshotsExact(path, reader);
        } finally {
          await reader.close();
        }
        await expectFoldsExact(path);
      }),
      { numRuns: 12 },
    );
  });

  it('a reader starts from the snapshot: it folds only the events after it, not the log from seq 1', async () => {
    const path = tempLog();
    const writer = openRegistered(path);
    for (let i = 0; i < 5; i += 1)
      await writer.append(
        Array.from({ length: 100 }, (): NewEvent => ({
          type: 'vault.accessed',
          data: { op: 'get', key: 'k', tier: 'project' },
        })),
      );
    await writer.close();
    let folded = 0;
    const counting: Projection<number> = {
      name: 'counting',
      init: () => 0,
      evolve: (n) => {
        folded += 1;
        return n + 1;
      },
    };
    const first = new LmdbEventLog({ path });
    first.project(counting);
    await first.append([{ type: 'vault.accessed', data: { op: 'get', key: 'k', tier: 'project' } }]);
    // Every event, the `projection.saved` records of the writer's snapshots included.
    const { seq: head } = await first.head();
    expect(head).toBeGreaterThan(501);
    expect(folded).toBe(head);
    await first.close();
    folded = 0;
    const second = new LmdbEventLog({ path });
    try {
      expect((await second.project(counting).current()).state).toBe((await second.head()).seq);
      // Only the event after the snapshot: the one that records its digest.
      expect(folded).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('rebuilds a snapshot made by another version of the fold, and `rebuild` recomputes everything from seq 1', async () => {
    const path = tempLog();
    const v1: Projection<number> = { name: 'count', version: 1, init: () => 0, evolve: (n) => n + 1 };
    const writer = new LmdbEventLog({ path });
    writer.project(v1);
    await writer.append(
      Array.from({ length: 200 }, (): NewEvent => ({
        type: 'vault.accessed',
        data: { op: 'get', key: 'k', tier: 'project' },
      })),
    );
    await writer.close();
    const v2: Projection<number> = { name: 'count', version: 2, init: () => 0, evolve: (n) => n + 2 };
    const reader = openRegistered(path);
    try {
      const { seq: head } = await reader.head();
      expect((await reader.project(v2).current()).state).toBe(2 * head);
      const progress: number[] = [];
      const report = await reader.rebuild((done) => progress.push(done));
      expect(report).toMatchObject({
        events: head,
        projections: expect.arrayContaining(['stats', 'count']),
        indexes: ['tool', 'agent', 'status', 'iface'],
      });
      expect(progress.at(-1)).toBe(head);
      expect(await expectSnapshotsExact(path, reader)).toBe(3);
    } finally {
      await reader.close();
    }
  });

  it('a writer killed mid-burst leaves snapshots and indexes that equal the fold of what was committed', async () => {
    const path = tempLog();
    const child = spawn(process.execPath, [join(REPO, 'test', 'fixtures', 'projection-writer.mjs'), path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let acknowledged = 0;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        acknowledged += chunk.toString().split('\n').length - 1;
        if (acknowledged >= 40) resolve();
      });
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const reader = new LmdbEventLog({ path });
    try {
      expect((await verifyChain(reader.read())).ok).toBe(true);
      expect(await expectSnapshotsExact(path, reader)).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
    await expectFoldsExact(path);
  });
});
