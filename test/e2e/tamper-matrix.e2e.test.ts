import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { callIdOf } from '../../src/events/append-batch.js';
import {
  cutTail,
  lastSeqOf,
  logFile,
  readAt,
  rehashed,
  rewriteFrom,
  setTreeSize,
  tamper,
  writeIndexed,
} from '../helpers/forger.js';
import { copyOfProject, runCli } from '../helpers/project.js';

const TOOLS =
  'tools:\n  echo.say:\n    type: cli\n    command: echo\n    args: ["{{text}}"]\n    parameters: [{name: text, required: true}]\n';

/**
 * One project, built once: three calls, a copy of its log taken after the second (the "earlier
 * copy" of a rollback), a checkpoint and the verifier key kept outside it. Every test tampers with
 * a fresh copy of it, as someone with write access to `.factorly/` could.
 */
let base: string;
let outside: string;
let otherProject: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'factorly-tamper-'));
  outside = mkdtempSync(join(tmpdir(), 'factorly-anchor-'));
  otherProject = mkdtempSync(join(tmpdir(), 'factorly-other-'));
  for (const root of [base, otherProject]) writeFileSync(join(root, 'factorly.yaml'), TOOLS);
  runCli(['call', 'echo.say', '--text', 'one'], base);
  runCli(['call', 'echo.say', '--text', 'two'], base);
  copyFileSync(logFile(base), join(outside, 'earlier.lmdb'));
  runCli(['call', 'echo.say', '--text', 'three'], base);
  expect(runCli(['logs', 'checkpoint', '-o', join(outside, 'checkpoint.txt')], base).status).toBe(0);
  writeFileSync(join(outside, 'log.pub'), runCli(['logs', 'key'], base).stdout);
  runCli(['call', 'echo.say', '--text', 'elsewhere'], otherProject);
}, 120_000);

afterAll(() => {
  for (const dir of [base, outside, otherProject]) rmSync(dir, { recursive: true, force: true });
});

const copy = (): string => copyOfProject(base);

function verify(root: string) {
  const run = runCli(
    ['logs', 'verify', '--checkpoint', join(outside, 'checkpoint.txt'), '--key', join(outside, 'log.pub'), '--json'],
    root,
  );
  return {
    status: run.status,
    report: JSON.parse(run.stdout) as {
      ok: boolean;
      findings: { kind: string; seq?: number; where?: string; reason: string }[];
      checkpoints: { status: string }[];
    },
  };
}

const kinds = (report: ReturnType<typeof verify>['report']) => report.findings.map((f) => f.kind);

/** The seq of the first event of the call that echoed `text`. */
async function seqOfCall(root: string, text: string): Promise<number> {
  let found = 0;
  await tamper(root, (dbs) => {
    for (const { key, value } of dbs.events.getRange()) {
      if (value.toString().includes(`"text":"${text}"`)) {
        found = key;
        break;
      }
    }
  });
  return found;
}

describe('logs verify against a checkpoint kept outside the project', () => {
  it('an untouched log that grew since the checkpoint verifies', () => {
    const root = copy();
    runCli(['call', 'echo.say', '--text', 'four'], root);
    const { status, report } = verify(root);
    expect(report.findings).toEqual([]);
    expect(status).toBe(0);
    expect(report.checkpoints).toMatchObject([{ status: 'consistent' }]);
  });

  it('a modified event', async () => {
    const root = copy();
    const seq = await seqOfCall(root, 'two');
    await tamper(root, (dbs) =>
      dbs.events.putSync(seq, Buffer.from(dbs.events.getBinary(seq)!.toString().replace('"two"', '"tw0"'))),
    );
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(report.findings[0]).toMatchObject({ seq, kind: 'modified' });
  });

  it('a deleted event', async () => {
    const root = copy();
    const seq = await seqOfCall(root, 'two');
    await tamper(root, (dbs) => dbs.events.removeSync(seq));
    expect(verify(root)).toMatchObject({ status: 1, report: { findings: [{ seq, kind: 'deleted' }] } });
  });

  it('an inserted event, however well hashed', async () => {
    const root = copy();
    const seq = await seqOfCall(root, 'two');
    await tamper(root, (dbs) => {
      for (let at = lastSeqOf(dbs); at >= seq; at -= 1) dbs.events.putSync(at + 1, dbs.events.getBinary(at)!);
      const forged = rehashed({
        ...readAt(dbs, seq + 1),
        id: 'forged',
        seq,
        prevHash: readAt(dbs, seq - 1).hash,
        data: { callId: 'x', rootId: 'x', tool: 'rm', params: {}, iface: 'cli' },
      } as Recorded);
      dbs.events.putSync(seq, Buffer.from(JSON.stringify(forged)));
    });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(report.findings[0]).toMatchObject({ seq, kind: 'inserted' });
  });

  it('two swapped events', async () => {
    const root = copy();
    const seq = await seqOfCall(root, 'two');
    await tamper(root, (dbs) => {
      const [a, b] = [dbs.events.getBinary(seq)!, dbs.events.getBinary(seq + 1)!];
      dbs.events.putSync(seq, b);
      dbs.events.putSync(seq + 1, a);
    });
    expect(verify(root)).toMatchObject({ status: 1, report: { findings: [{ seq, kind: 'reordered' }] } });
  });

  it('a tail cut with the head record and the tree moved back with it', async () => {
    const root = copy();
    await tamper(root, (dbs, raw) => {
      cutTail(dbs, 3);
      setTreeSize(raw, lastSeqOf(dbs));
    });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    // The cut took the last call's completion too: the inflight index, which the forger left as it
    // was, no longer lists that call, while the events now leave it open; and the audit view's
    // indexes still say they cover the events cut.
    expect(kinds(report)).toEqual(['index', 'index', 'rolled-back']);
    expect(report.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          where: 'inflight',
          reason: expect.stringContaining('is open in the events but missing from the inflight index'),
        }),
        expect.objectContaining({ where: 'audit', reason: expect.stringContaining('events were removed') }),
      ]),
    );
  });

  it('a forged event appended with a correct hash, its indexes and the head record', async () => {
    const root = copy();
    await tamper(root, (dbs) => {
      const last = readAt(dbs, lastSeqOf(dbs));
      writeIndexed(
        dbs,
        rehashed({
          ...last,
          seq: last.seq + 1,
          id: 'forged',
          prevHash: last.hash,
          type: 'call.requested',
          data: { callId: 'f', rootId: 'f', tool: 'rm', params: {}, iface: 'cli' },
        } as Recorded),
      );
    });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(report.findings).toMatchObject([{ kind: 'appended', where: 'tree' }]);
  });

  it('a rollback to an earlier copy of the file', () => {
    const root = copy();
    copyFileSync(join(outside, 'earlier.lmdb'), logFile(root));
    rmSync(`${logFile(root)}-lock`, { force: true });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(kinds(report)).toEqual(['rolled-back']);
  });

  it('history rewritten consistently from a seq on (chain, indexes and tree all agree)', async () => {
    const root = copy();
    const seq = await seqOfCall(root, 'three');
    await rewriteFrom(root, seq, (event) =>
      callIdOf(event) && event.type === 'call.requested'
        ? ({ ...event, data: { ...event.data, params: { text: 'innocent' } } } as Recorded)
        : event,
    );
    // The forger re-signed the log's own checkpoints: without one kept elsewhere, nothing shows.
    expect(runCli(['logs', 'verify'], root).status).toBe(0);
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(report.findings).toMatchObject([
      { kind: 'rewritten', reason: expect.stringContaining('history was rewritten at or before seq') },
    ]);
  });

  it("the file replaced by another project's log", () => {
    const root = copy();
    copyFileSync(logFile(otherProject), logFile(root));
    rmSync(`${logFile(root)}-lock`, { force: true });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(kinds(report)).toContain('other-log');
  });

  it('an entry removed from the calls index (the call would read as running)', async () => {
    const root = copy();
    const seq = await seqOfCall(root, 'two');
    await tamper(root, (dbs) => {
      const completed = [...dbs.calls.getValues(callIdOf(readAt(dbs, seq))!)].at(-1)!;
      dbs.calls.removeSync(callIdOf(readAt(dbs, seq))!, completed);
    });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(report.findings[0]).toMatchObject({
      kind: 'index',
      where: 'calls',
      reason: expect.stringContaining('missing from the calls index'),
    });
  });
});
