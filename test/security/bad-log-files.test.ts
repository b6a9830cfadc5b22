import { randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLmdbFile } from '../../src/events/lmdb-file-check.js';
import { FactorlyError } from '../../src/base/errors.js';
import { runCli, tempProject } from '../helpers/project.js';

const PAGE = 4096;

/** A project with a few recorded calls; each case gets a copy whose events.lmdb it damages. */
let template: string;
let good: Buffer;
beforeAll(() => {
  const made = tempProject({ '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n' });
  template = mkdtempSync(join(tmpdir(), 'factorly-badlog-'));
  cpSync(made, template, { recursive: true });
  for (let i = 0; i < 3; i += 1) runCli(['call', 'hi'], template);
  good = readFileSync(join(template, '.factorly', 'events.lmdb'));
});
const copies: string[] = [];
afterAll(() => {
  for (const dir of [template, ...copies]) rmSync(dir, { recursive: true, force: true });
});

function damaged(damage: (file: string) => void): string {
  const root = mkdtempSync(join(tmpdir(), 'factorly-badlog-'));
  copies.push(root);
  cpSync(template, root, { recursive: true });
  const file = join(root, '.factorly', 'events.lmdb');
  rmSync(`${file}-lock`, { force: true });
  damage(file);
  return root;
}

/** The root page of the main database, from the newest of the good file's meta pages (lmdb-js keeps one at half a page too). */
function mainRootPage(): number {
  const metas = [0, PAGE / 2, PAGE].map((offset) => ({
    txnid: good.readBigUInt64LE(offset + 152),
    root: good.readBigUInt64LE(offset + 136),
  }));
  return Number(metas.reduce((a, b) => (b.txnid > a.txnid ? b : a)).root);
}

const cases: [string, (file: string) => void, RegExp][] = [
  ['random bytes', (file) => writeFileSync(file, randomBytes(good.length)), /is not an LMDB environment/],
  ['zero pages', (file) => writeFileSync(file, Buffer.alloc(good.length)), /is not an LMDB environment/],
  ['a few bytes', (file) => writeFileSync(file, good.subarray(0, 100)), /is not an LMDB environment/],
  [
    'cut to one page',
    (file) => truncateSync(file, PAGE),
    /is cut short: 4096 bytes, less than its two 4096-byte header pages/,
  ],
  [
    'cut in half',
    (file) => truncateSync(file, Math.floor(good.length / PAGE / 2) * PAGE),
    /is cut short: \d+ bytes, but its header says it holds at least \d+/,
  ],
  [
    'its data root zeroed',
    (file) => {
      const bytes = Buffer.from(good);
      bytes.fill(0, mainRootPage() * PAGE, (mainRootPage() + 1) * PAGE);
      writeFileSync(file, bytes);
    },
    /is damaged: page \d+, a root of its data, is not a valid LMDB page/,
  ],
  [
    'a random second header page',
    (file) => {
      const bytes = Buffer.from(good);
      randomBytes(PAGE).copy(bytes, PAGE);
      writeFileSync(file, bytes);
    },
    /is damaged/,
  ],
];

describe('a log file that is not a valid LMDB environment ends with a clear error, exit 2, never a signal', () => {
  for (const [what, damage, reason] of cases) {
    it(`${what}: logs, logs stats, logs verify and call refuse it naming the file`, () => {
      const root = damaged(damage);
      const file = join(root, '.factorly', 'events.lmdb');
      for (const args of [['logs'], ['logs', 'stats'], ['logs', 'verify'], ['call', 'hi']]) {
        const run = runCli(args, root);
        expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toContain(`Error: the event log ${file} `);
        expect(run.stderr).toMatch(reason);
      }
    });
  }

  it('logs verify walks every page: random bytes over any one page are reported (exit 2) or harmless (a free page), never a signal', () => {
    const pages = good.length / PAGE;
    const verdicts = new Map<number, 'refused' | 'passed'>();
    const root = damaged(() => {});
    const file = join(root, '.factorly', 'events.lmdb');
    for (let page = 2; page < pages; page += 1) {
      const bytes = Buffer.from(good);
      randomBytes(PAGE).copy(bytes, page * PAGE);
      writeFileSync(file, bytes);
      try {
        checkLmdbFile(file, { deep: true });
        verdicts.set(page, 'passed');
      } catch (error) {
        expect(FactorlyError.isInstance(error) && error.code).toBe('LOG_UNREADABLE');
        verdicts.set(page, 'refused');
      }
    }
    expect([...verdicts.values()]).toContain('refused');
    // The CLI agrees on one damaged page, and a page the walk let through is one verify can read.
    for (const verdict of ['refused', 'passed'] as const) {
      const page = [...verdicts].find(([, v]) => v === verdict)?.[0];
      if (page === undefined) continue;
      const bytes = Buffer.from(good);
      randomBytes(PAGE).copy(bytes, page * PAGE);
      writeFileSync(file, bytes);
      rmSync(`${file}-lock`, { force: true });
      const run = runCli(['logs', 'verify'], root);
      expect(run.status, `page ${page} (${verdict}): ${run.stderr}`).toBe(verdict === 'refused' ? 2 : 0);
    }
  });

  it('an intact log still verifies (exit 0), a tampered one exits 1: three different answers', () => {
    expect(
      runCli(
        ['logs', 'verify'],
        damaged(() => {}),
      ).status,
    ).toBe(0);
    const tampered = damaged((file) => {
      // Every copy: LMDB leaves older copies of a page in pages it freed, where a change is harmless.
      const bytes = Buffer.from(good);
      for (let at = bytes.indexOf('"tool":"hi"'); at >= 0; at = bytes.indexOf('"tool":"hi"', at + 1))
        bytes.write('"tool":"ho"', at);
      writeFileSync(file, bytes);
    });
    const run = runCli(['logs', 'verify'], tampered);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/Chain broken at seq \d+/);
  });

  it('moving the damaged file aside starts a new log, as the error says', () => {
    const root = damaged((file) => writeFileSync(file, randomBytes(good.length)));
    const file = join(root, '.factorly', 'events.lmdb');
    copyFileSync(file, `${file}.damaged`);
    rmSync(file);
    expect(runCli(['call', 'hi'], root)).toMatchObject({ status: 0, stdout: 'hi\n' });
    expect(runCli(['logs', 'verify'], root).status).toBe(0);
  });
});
