import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signCheckpoint } from '../../src/events/checkpoint.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { newSignerKey, signerFromKey, verifierFromKey } from '../../src/events/signed-note.js';
import { verifyLogFile } from '../../src/events/verify-log.js';
import { AUDIT_INDEXES } from '../../src/events/event-index.js';
import { completed, requested } from '../../src/testing/contracts/event-log.js';
import { readAt, rehashed } from '../helpers/forger.js';
import { REPO, tempProject } from '../helpers/project.js';
import { spawn } from 'node:child_process';
import { rfcRoot } from '../helpers/rfc9162.js';
import { open } from 'lmdb';
import type { NewEvent } from '../../src/events/envelope.js';
import { openLogDatabases, type LogDatabases } from '../../src/events/lmdb-layout.js';
import type { Recorded } from '../../src/events/envelope.js';

/** A log of `calls` calls (two events each), checked in chunks of 16 so every join is crossed. */
async function logOf(calls: number): Promise<string> {
  const path = join(tempProject(), 'events.lmdb');
  const log = new LmdbEventLog({ path });
  for (let i = 0; i < calls; i += 10) {
    const batch = [];
    for (let j = i; j < Math.min(calls, i + 10); j += 1) batch.push(requested(`c${j}`), completed(`c${j}`));
    await log.append(batch);
  }
  await log.close();
  return path;
}

async function edit(path: string, change: (dbs: LogDatabases) => void): Promise<void> {
  const env = open({ path, compression: false });
  change(openLogDatabases(env));
  await env.close();
}

const CHUNK = 16;

describe('verifyLogFile, chunk by chunk', () => {
  it('verifies an intact log across chunk boundaries and recomputes its Merkle root', async () => {
    const path = await logOf(150);
    const report = await verifyLogFile(path, { chunk: CHUNK });
    expect(report).toMatchObject({ ok: true, status: 'verified', verified: 300, events: 300, findings: [] });
    const log = new LmdbEventLog({ path });
    const leaves: Buffer[] = [];
    for await (const event of log.read()) leaves.push(Buffer.from(event.hash, 'hex'));
    await log.close();
    expect(report.tree.rootHash).toBe(rfcRoot(leaves).toString('hex'));
  });

  it('names a break on either side of a chunk boundary', async () => {
    for (const seq of [CHUNK, CHUNK + 1, 3 * CHUNK]) {
      const path = await logOf(40);
      await edit(path, (dbs) =>
        dbs.events.putSync(seq, Buffer.from(dbs.events.getBinary(seq)!.toString().replace('"id":"', '"id":"x'))),
      );
      expect((await verifyLogFile(path, { chunk: CHUNK })).findings).toEqual([
        expect.objectContaining({ seq, kind: 'modified' }),
      ]);
    }
    const path = await logOf(40);
    await edit(path, (dbs) => {
      const at = CHUNK + 1;
      for (let seq = 80; seq >= at; seq -= 1) dbs.events.putSync(seq + 1, dbs.events.getBinary(seq)!);
      dbs.events.putSync(
        at,
        Buffer.from(
          JSON.stringify(
            rehashed({ ...readAt(dbs, at + 1), id: 'forged', seq: at, prevHash: readAt(dbs, at - 1).hash } as Recorded),
          ),
        ),
      );
    });
    expect((await verifyLogFile(path, { chunk: CHUNK })).firstBad).toMatchObject({ seq: CHUNK + 1, kind: 'inserted' });
  });

  it('names a modification even when the event after it cannot be read', async () => {
    const path = await logOf(40);
    await edit(path, (dbs) => {
      dbs.events.putSync(30, Buffer.from(dbs.events.getBinary(30)!.toString().replace('"id":"', '"id":"x')));
      dbs.events.putSync(31, Buffer.from('{not json'));
    });
    expect((await verifyLogFile(path, { chunk: CHUNK })).findings).toEqual([
      expect.objectContaining({ seq: 30, kind: 'modified' }),
    ]);
  });

  it('names an ids entry pointing elsewhere, and a calls entry the events do not call for', async () => {
    const path = await logOf(40);
    // An id the log generated has no entry: one that appears, pointing elsewhere, is named by its entry.
    await edit(path, (dbs) => dbs.ids.putSync(readAt(dbs, 30).id, 31));
    const id = await idAt(path, 30);
    const at31 = await idAt(path, 31);
    expect((await verifyLogFile(path, { chunk: CHUNK })).findings).toEqual([
      {
        kind: 'index',
        where: 'ids',
        seq: 31,
        reason: `the ids index lists id ${id} at seq 31, which holds event ${at31}`,
      },
    ]);
    const other = await logOf(40);
    await edit(other, (dbs) => dbs.calls.putSync('c3', 77));
    expect((await verifyLogFile(other, { chunk: CHUNK })).findings).toEqual([
      {
        kind: 'index',
        where: 'calls',
        reason: 'the calls index (81 entries) holds an entry the events do not call for, or one was changed',
      },
      { kind: 'index', where: 'calls', reason: 'the calls index holds 81 entries for 80 call events' },
    ]);
  });

  it('expects an ids entry for every id a writer chose, and only for those', async () => {
    const path = await logOf(20);
    const log = new LmdbEventLog({ path });
    await log.append([
      { id: 'source-abc', type: 'source.recorded', data: { sha: 'abc', language: 'js', source: 'x' } },
      requested('c-last'),
    ]);
    await log.close();
    expect((await verifyLogFile(path, { chunk: CHUNK })).findings).toEqual([]);
    await edit(path, (dbs) => dbs.ids.removeSync('source-abc'));
    expect((await verifyLogFile(path, { chunk: CHUNK })).findings).toEqual([
      { kind: 'index', where: 'ids', seq: 41, reason: 'event 41 (id source-abc) is missing from the ids index' },
      { kind: 'index', where: 'ids', reason: 'the ids index holds 0 entries for 1 events whose writer chose their id' },
    ]);
  });

  it("checks the audit view's indexes (logs --tool/--agent/--status) up to what they say they cover", async () => {
    const path = join(tempProject(), 'events.lmdb');
    const log = new LmdbEventLog({ path });
    for (const index of AUDIT_INDEXES) log.index(index);
    await log.append([requested('c1'), completed('c1'), requested('c2'), completed('c2')]);
    await log.close();
    expect((await verifyLogFile(path, { chunk: 2 })).findings).toEqual([]);
    const env = open({ path, compression: false });
    const entries = env.openDB<number, [string, string]>({ name: 'index', dupSort: true, encoding: 'ordered-binary' });
    const [name, key, seq] = (() => {
      for (const { key, value } of entries.getRange()) return [key[0], key[1], value] as const;
      throw new Error('no audit entry');
    })();
    entries.removeSync([name, key], seq);
    await env.close();
    const findings = (await verifyLogFile(path, { chunk: 2 })).findings;
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'index',
        where: name,
        seq,
        reason: expect.stringContaining(`missing from the ${name} index`),
      }),
    ]);
  });

  it('checks the inflight index against the calls the events leave open', async () => {
    const path = join(tempProject(), 'events.lmdb');
    const log = new LmdbEventLog({ path });
    const writer = { writer: 'w1', pid: 1, bootId: 'b', host: 'h', startedAt: new Date().toISOString() };
    await log.append([{ id: 'writer-w1', type: 'writer.started', data: writer }]);
    const requestedByW1 = (callId: string) =>
      ({ type: 'call.requested', data: { ...requested(callId).data, writer: 'w1' } }) as NewEvent;
    await log.append([requestedByW1('left-open'), requestedByW1('done'), completed('done')]);
    await log.close();
    expect((await verifyLogFile(path)).ok).toBe(true);
    const env = open({ path, compression: false });
    env.openDB({ name: 'inflight', encoding: 'json' }).removeSync('c:left-open');
    await env.close();
    expect((await verifyLogFile(path)).findings).toEqual([
      {
        kind: 'index',
        where: 'inflight',
        reason:
          'call left-open is open in the events but missing from the inflight index (a crash would leave it running)',
      },
    ]);
  });

  it(
    'judges a log that another process keeps writing as it stood when the check began',
    { timeout: 60_000 },
    async () => {
      const path = await logOf(100);
      const writer = spawn(
        process.execPath,
        [join(REPO, 'test', 'fixtures', 'append-worker.mjs'), path, 'live', '3000'],
        { stdio: 'inherit' },
      );
      let exitCode: number | null | undefined;
      const exited = new Promise((resolve) => writer.on('exit', (code) => resolve((exitCode = code))));
      // Only read-only opens here while the writer runs, as a separate auditor's would be.
      await expect
        .poll(async () => (await verifyLogFile(path)).events, { timeout: 30_000, interval: 20 })
        .toBeGreaterThan(200);
      const reports = [];
      // Until the writer is done (a writer that dies early ends the loop too, and fails below). A
      // short log is checked on this thread: each turn yields so the writer's exit can be seen.
      do {
        reports.push(await verifyLogFile(path, { chunk: CHUNK }));
        await new Promise((resolve) => setImmediate(resolve));
      } while (reports.at(-1)!.events < 3200 && exitCode === undefined);
      await exited;
      expect(exitCode).toBe(0);
      for (const report of reports) expect(report.findings).toEqual([]);
      expect(reports[0]!.verified).toBeGreaterThan(200);
      expect((await verifyLogFile(path)).verified).toBe(3200);
    },
  );

  it('checks checkpoints whose sizes fall inside chunks against roots recomputed there', async () => {
    const path = await logOf(40);
    const log = new LmdbEventLog({ path });
    const tree = await log.tree();
    const signer = signerFromKey(newSignerKey(tree.origin));
    const given = [21, 64, 80].map((size) => ({
      name: `at-${size}`,
      note: signCheckpoint({ origin: tree.origin, size, rootHash: tree.root(size) }, signer),
    }));
    await log.close();
    const report = await verifyLogFile(path, {
      chunk: CHUNK,
      checkpoints: given,
      verifiers: [verifierFromKey(signer.verifierKey)],
    });
    expect(report.checkpoints.map((c) => c.status)).toEqual(['consistent', 'consistent', 'consistent']);
    expect(report.ok).toBe(true);
  });
});

async function idAt(path: string, seq: number): Promise<string> {
  let id = '';
  await edit(path, (dbs) => (id = readAt(dbs, seq).id));
  return id;
}
