import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { startTestKernel } from '../../src/testing/index.js';

const YAML = 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n';
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function ownRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'factorly-test-kernel-'));
  roots.push(root);
  return root;
}

describe("startTestKernel's log", () => {
  it("with log: 'project', records in the project's own LMDB file, which outlives the kernel", async () => {
    const root = ownRoot();
    const test = await startTestKernel(YAML, [], { root, log: 'project' });
    const outcome = await test.call('hi');
    expect(outcome).toMatchObject({ status: 'success', output: 'hi\n' });
    expect((await test.events()).map((event) => event.type)).toContain('call.completed');
    await test.stop();
    const file = new LmdbEventLog({ path: join(root, '.factorly', 'events.lmdb') });
    try {
      const types = (await file.readCall(outcome.callId)).map((event) => event.type);
      expect(types).toEqual(expect.arrayContaining(['call.requested', 'call.completed']));
    } finally {
      await file.close();
    }
  });

  it('by default, keeps the events in memory and writes no log file', async () => {
    const root = ownRoot();
    const test = await startTestKernel(YAML, [], { root });
    await test.call('hi');
    expect((await test.events()).map((event) => event.type)).toContain('call.completed');
    await test.stop();
    expect(existsSync(join(root, '.factorly', 'events.lmdb'))).toBe(false);
  });
});
