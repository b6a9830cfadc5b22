import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { hashEnvelope } from '../../src/events/hash.js';
import type { Recorded } from '../../src/events/envelope.js';
import { BIN, runCli, tempProject } from '../helpers/project.js';

const TOOLS = `tools:
  echo.say:
    type: cli
    command: echo
    args: ["{{text}}"]
    parameters: [{name: text, required: true}]
  fail:
    type: cli
    command: sh
    args: ["-c", "exit 4"]
`;

/**
 * A project with five calls: three successes, one error, one blocked. Seqs: 1 config.loaded, 2-3
 * plugin.loaded (cli provider, shadow rules), then per call call.requested, shadow.decided (loop
 * detection), call.completed from seq 4; the blocked call has no decision (blocked before the rules).
 */
function project(): string {
  const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
  for (const text of ['one', 'two', 'three']) runCli(['call', 'echo.say', '--text', text], root);
  runCli(['call', 'fail'], root);
  runCli(['call', 'echo.say'], root);
  return root;
}

/** Raw access to the LMDB events database, as an attacker with file access would have. */
async function tamper(root: string, change: (db: ReturnType<typeof eventsDb>['db']) => void): Promise<void> {
  const handle = eventsDb(root);
  change(handle.db);
  await handle.env.close();
}

function eventsDb(root: string) {
  const env = open({ path: join(root, '.factorly', 'events.lmdb'), compression: false });
  return { env, db: env.openDB<Buffer, number>({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' }) };
}

function read(db: ReturnType<typeof eventsDb>['db'], seq: number): Recorded {
  return JSON.parse(db.getBinary(seq)!.toString()) as Recorded;
}

/** Seq of the first call.requested: how many boot events come before it depends on the plugins installed. */
async function firstCallSeq(root: string): Promise<number> {
  const handle = eventsDb(root);
  let seq = 0;
  for (const { key, value } of handle.db.getRange()) {
    if ((JSON.parse(value.toString()) as Recorded).type === 'call.requested') {
      seq = key;
      break;
    }
  }
  await handle.env.close();
  return seq;
}

/** Seqs of every call.requested, in order. */
async function requestSeqs(root: string): Promise<number[]> {
  const handle = eventsDb(root);
  const seqs = [...handle.db.getRange()]
    .filter(({ value }) => (JSON.parse(value.toString()) as Recorded).type === 'call.requested')
    .map(({ key }) => key);
  await handle.env.close();
  return seqs;
}

function verify(root: string) {
  const run = runCli(['logs', 'verify', '--json'], root);
  return { status: run.status, report: JSON.parse(run.stdout) };
}

describe('logs verify catches tampering', () => {
  it('a modified byte', async () => {
    const root = project();
    const seq = await firstCallSeq(root);
    await tamper(root, (db) => db.putSync(seq, Buffer.from(db.getBinary(seq)!.toString().replace('"one"', '"0ne"'))));
    expect(verify(root)).toMatchObject({
      status: 1,
      report: { ok: false, verified: seq - 1, firstBad: { seq, kind: 'modified' } },
    });
  });

  it('a deleted event', async () => {
    const root = project();
    await tamper(root, (db) => db.removeSync(6));
    expect(verify(root)).toMatchObject({
      status: 1,
      report: { ok: false, verified: 5, firstBad: { seq: 6, kind: 'deleted' } },
    });
  });

  it('a forged event inserted with a valid hash of its own', async () => {
    const root = project();
    await tamper(root, (db) => {
      const last = Number([...db.getKeys({ reverse: true, limit: 1 })][0]);
      for (let seq = last; seq >= 6; seq -= 1) db.putSync(seq + 1, db.getBinary(seq)!);
      const before = read(db, 5);
      const forged = {
        ...read(db, 6),
        id: 'forged',
        seq: 6,
        prevHash: before.hash,
        data: { callId: 'x', rootId: 'x', tool: 'rm', params: {}, iface: 'cli' },
      };
      const { hash: _drop, ...rest } = forged;
      db.putSync(6, Buffer.from(JSON.stringify({ ...forged, hash: hashEnvelope(rest as Omit<Recorded, 'hash'>) })));
    });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    // Named at the event slipped in, not as a reordering of the one after it.
    expect(report.firstBad).toMatchObject({ seq: 6, kind: 'inserted' });
    expect(report.verified).toBe(5);
  });

  it('two swapped events', async () => {
    const root = project();
    await tamper(root, (db) => {
      const [a, b] = [db.getBinary(7)!, db.getBinary(8)!];
      db.putSync(7, b);
      db.putSync(8, a);
    });
    expect(verify(root)).toMatchObject({ status: 1, report: { firstBad: { seq: 7, kind: 'reordered' } } });
  });

  it('a truncated tail', async () => {
    const root = project();
    await tamper(root, (db) => {
      const last = Number([...db.getKeys({ reverse: true, limit: 1 })][0]);
      db.removeSync(last);
      db.removeSync(last - 1);
    });
    const { status, report } = verify(root);
    expect(status).toBe(1);
    expect(report.firstBad.kind).toBe('truncated');
    expect(runCli(['logs', 'verify'], root).stderr).toMatch(
      /^Chain broken at seq \d+ \(truncated\): the log ends at seq \d+ but its head record says \d+/,
    );
  });
});

describe('logs: filters, detail, show, stats, export, replay', () => {
  it('filters by tool, status and seq range, and prints detail blocks', async () => {
    const root = project();
    const lines = (args: string[]) =>
      runCli(['logs', '--json', ...args], root)
        .stdout.trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    const all = lines([]);
    expect(all.map((e) => e.status)).toEqual(['success', 'success', 'success', 'error', 'blocked']);
    const requestedAt = await requestSeqs(root);
    expect(lines(['--tool', 'say', '-n', '2']).map((e) => e.params.text ?? null)).toEqual(['three', null]);
    expect(lines(['--status', 'error']).map((e) => e.tool)).toEqual(['fail']);
    expect(lines(['--since', String(requestedAt[3])]).map((e) => e.tool)).toEqual(['fail', 'echo.say']);
    // Up to the second call's completion (an entry's seq is the event that closed it).
    expect(lines(['--until', String(all[1].seq)]).map((e) => e.params.text)).toEqual(['one', 'two']);
    expect(runCli(['logs', '--status', 'error', '--detail'], root).stdout).toMatch(
      /^——— .* ———\nTool: +fail\nStatus: +error \(exit 4\)\n/,
    );
    expect(runCli(['logs', '--since', 'yesterday-ish'], root)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--since: expected a seq number'),
    });
  });

  it('follows new calls live, filtered, until interrupted', async () => {
    const root = project();
    const env = { ...process.env, XDG_DATA_HOME: join(root, '.xdg-data'), XDG_CONFIG_HOME: join(root, '.xdg-config') };
    const follower = spawn(process.execPath, [BIN, 'logs', '--follow', '--json', '--tool', 'say', '-n', '1'], {
      cwd: root,
      env,
    });
    let out = '';
    follower.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await expect.poll(() => out.split('\n').length, { timeout: 15_000 }).toBeGreaterThan(1);
    runCli(['call', 'fail'], root);
    runCli(['call', 'echo.say', '--text', 'live'], root);
    await expect.poll(() => out.trim().split('\n').length, { timeout: 15_000 }).toBe(2);
    follower.kill('SIGINT');
    const code = await new Promise((resolve) => follower.on('exit', resolve));
    expect(code).toBe(0);
    const [tail, live] = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(tail).toMatchObject({ tool: 'echo.say', status: 'blocked' });
    expect(live).toMatchObject({ tool: 'echo.say', status: 'success', params: { text: 'live' } });
  });

  it('shows a call by id and by hash prefix, and refuses an unknown one', () => {
    const root = project();
    const [entry] = runCli(['logs', '--json', '--status', 'error'], root)
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const byId = runCli(['logs', 'show', entry.call_id], root);
    expect(byId.stdout).toMatch(
      new RegExp(`^fail \\[error exit 4 \\d+ms\\] ${entry.call_id} \\(cli\\)\\n  params: \\{\\}`),
    );
    expect(runCli(['logs', 'show', entry.hash.slice(0, 10)], root).stdout).toBe(byId.stdout);
    expect(runCli(['logs', 'show', 'abcdef01'], root)).toMatchObject({
      status: 1,
      stderr: 'Error: no call matches "abcdef01"\n',
    });
  });

  it('summarises with stats', () => {
    const root = project();
    const stats = JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout);
    expect(stats).toMatchObject({
      calls: 5,
      byStatus: { success: 3, error: 1, blocked: 1 },
      byTool: { 'echo.say': 4, fail: 1 },
      blockedBy: { invalid: 1 },
      chain: { ok: true },
    });
    expect(runCli(['logs', 'stats'], root).stdout).toContain('Blocked calls: 1 total (1 invalid)');
  });

  it('exports jsonl that verifies elsewhere and OTLP JSON', () => {
    const root = project();
    const out = join(root, 'export.jsonl');
    expect(runCli(['logs', 'export', '-o', out], root).stderr).toMatch(/^Exported \d+ events to /);
    const events = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Recorded);
    for (const [i, event] of events.entries()) {
      const { hash, ...rest } = event;
      expect(hashEnvelope(rest)).toBe(hash);
      if (i > 0) expect(event.prevHash).toBe(events[i - 1].hash);
    }
    const otlp = JSON.parse(runCli(['logs', 'export', '--format', 'otlp-json'], root).stdout);
    const records = otlp.resourceLogs[0].scopeLogs[0].logRecords;
    expect(records).toHaveLength(events.length);
    expect(
      records.find((r: { body: { stringValue: string } }) => r.body.stringValue === 'call.completed'),
    ).toMatchObject({ severityText: 'INFO' });
  });

  // Ten CLI runs, each loading every official plugin: give it room on a busy machine.
  it('re-runs a recorded call with an override, and rebuilds a timeline up to a seq', { timeout: 90_000 }, async () => {
    const root = project();
    const callSeq = await firstCallSeq(root);
    const [first] = runCli(['logs', '--json'], root)
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runCli(['logs', 'replay', first.call_id, '--show'], root).stdout).toBe(
      `Would run echo.say {"text":"one"} (replaying ${first.call_id})\n`,
    );
    expect(runCli(['logs', 'replay', first.call_id, '--param', 'text=again'], root)).toMatchObject({
      status: 0,
      stdout: 'again\n',
    });
    const [replayed] = runCli(['logs', '--json', '-n', '1'], root)
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replayed).toMatchObject({ replayed_from: first.call_id, params: { text: 'again' } });
    // Up to the second call's completion: each call is requested, decided (loop detection) and completed.
    const until = callSeq + 5;
    const timeline = runCli(['logs', 'replay', '--until', String(until)], root).stdout.split('\n');
    expect(timeline[0]).toMatch(new RegExp(`^State as of seq ${until} \\(.*\\): 2 calls$`));
    expect(timeline[1]).toMatch(new RegExp(`^ {2}#${callSeq + 2} \\d\\d:\\d\\d:\\d\\d echo\\.say \\[cli\\] success$`));
    expect(runCli(['logs', 'replay'], root).status).toBe(2);
  });
});
