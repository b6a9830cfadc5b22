import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { projectEvents } from '../helpers/events.js';
import { isolatedEnv, spawnListening } from '../helpers/listening.js';
import { BIN, runCli, tempProject } from '../helpers/project.js';

/** Real file systems that fail the way disks do: a small tmpfs that fills up, a read-only bind mount. */
const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0).reverse()) {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function tmpfs(size: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'factorly-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

function readOnlyView(of: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'factorly-ro-'));
  execFileSync('mount', ['--bind', of, dir]);
  mounts.push(dir);
  execFileSync('mount', ['-o', 'remount,ro,bind', dir]);
  return dir;
}

/**
 * A project on a 4 MB tmpfs: `hi` leaves a marker file outside it when it runs, `fill` fills the
 * disk and prints 40 KB. Events that big need fresh pages (LMDB would fit a small one in pages it
 * freed before), so on the full disk their commit fails every time.
 */
function projectOnTmpfs(marker: string): string {
  const disk = tmpfs('4m');
  const root = join(disk, 'project');
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(
    join(root, '.factorly', 'factorly.yaml'),
    `tools:
  hi: {type: cli, command: sh, args: ["-c", "touch ${marker}; echo hi"], parameters: [{name: pad}]}
  fill: {type: cli, command: sh, args: ["-c", "dd if=/dev/zero of=${join(disk, 'filler')} bs=64k count=200 2>/dev/null; head -c 40000 /dev/zero | tr '\\\\0' x"]}
`,
  );
  return root;
}

const PAD = 'p'.repeat(40_000);

const text = (result: unknown): string => (result as { content: { text: string }[] }).content[0]?.text ?? '';

describe('a full disk: calls are refused or answered with an error, nothing is lost, serve keeps serving', () => {
  it('factorly call: one line naming the log file, the tool not run when its request cannot be recorded', () => {
    const marker = join(tempProject(), 'ran');
    const root = projectOnTmpfs(marker);
    expect(runCli(['call', 'hi'], root)).toMatchObject({ status: 0, stdout: 'hi\n' });
    const filled = runCli(['call', 'fill'], root);
    expect(filled.status).toBe(1);
    expect(filled.stderr).toMatch(
      /^the tool ran, but its outcome could not be recorded \(cannot write the event log \S+events\.lmdb: .+\); the call is marked interrupted once the log can be written$/m,
    );
    // One line, factorly's: not LMDB's own `Write error: …` before it.
    expect(filled.stderr.trimEnd().split('\n')).toHaveLength(1);
    rmSync(marker);
    const refused = runCli(['call', 'hi', '--pad', PAD], root);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /^refused before the tool ran: the call could not be recorded \(cannot write the event log \S+events\.lmdb: /,
    );
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(marker)).toBe(false);
    // Reading still works on the full disk, and verify finds the log intact.
    expect(runCli(['logs', 'verify'], root).status).toBe(0);
    rmSync(join(root, '..', 'filler'));
    // Space is back: the next open marks the call whose outcome was lost.
    const statuses = runCli(['logs', '--json'], root)
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line).status);
    expect(statuses).toEqual(['success', 'interrupted']);
  });

  it(
    'factorly serve: keeps serving through the full disk and marks the lost outcome once space returns',
    { timeout: 90_000 },
    async () => {
      const marker = join(tempProject(), 'ran');
      const root = projectOnTmpfs(marker);
      const listening = await spawnListening([BIN, 'serve', '--port', '0'], { cwd: root, env: isolatedEnv(root) });
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(listening.url)));
      try {
        expect(text(await client.callTool({ name: 'hi', arguments: {} }))).toBe('hi\n');
        const lost = await client.callTool({ name: 'fill', arguments: {} });
        expect(lost.isError).toBe(true);
        expect(text(lost)).toContain('the tool ran, but its outcome could not be recorded');
        rmSync(marker);
        const refused = await client.callTool({ name: 'hi', arguments: { pad: PAD } });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toContain('refused before the tool ran');
        expect(existsSync(marker)).toBe(false);
        rmSync(join(root, '..', 'filler'));
        expect(text(await client.callTool({ name: 'hi', arguments: {} }))).toBe('hi\n');
      } finally {
        await client.close();
      }
      expect(await listening.stop()).toBe(0);
      const events = await projectEvents(root);
      const interrupted = events
        .filter((event) => event.type === 'call.interrupted')
        .map((event) => event.data as { reason: string });
      expect(interrupted).toEqual([
        {
          callId: expect.any(String),
          writer: expect.any(String),
          reason: expect.stringMatching(/^outcome not recorded: the completion could not be written/),
        },
      ]);
      const statuses = runCli(['logs', '--json'], root)
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line).status);
      expect(statuses).toEqual(['success', 'interrupted', 'success']);
    },
  );
});

describe('a read-only file system', () => {
  it(
    'logs, show, stats, export, verify and replay read a log they cannot write; a call is refused in one line',
    { timeout: 90_000 },
    () => {
      const root = tempProject({ '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n' });
      runCli(['call', 'hi'], root);
      const view = readOnlyView(root);
      const [entry] = runCli(['logs', '--json'], view)
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(entry).toMatchObject({ tool: 'hi', status: 'success' });
      expect(runCli(['logs', 'show', entry.call_id], view)).toMatchObject({
        status: 0,
        stdout: expect.stringMatching(/^hi \[success exit 0/),
      });
      expect(JSON.parse(runCli(['logs', 'stats', '--json'], view).stdout)).toMatchObject({
        calls: 1,
        chain: { ok: true },
      });
      expect(runCli(['logs', 'export'], view).stdout.trim().split('\n').length).toBeGreaterThan(3);
      expect(runCli(['logs', 'verify'], view)).toMatchObject({
        status: 0,
        stdout: expect.stringMatching(/^Chain verified: \d+ events OK/),
      });
      expect(runCli(['logs', 'replay', '--check'], view)).toMatchObject({
        status: 0,
        stdout: 'Re-derived the decisions of 1 calls: 0 mismatch(es)\n',
      });
      const refused = runCli(['call', 'hi'], view);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(
        /^refused before the tool ran: the call could not be recorded \(cannot open the event log \S+events\.lmdb for writing: .*[Rr]ead-only file system/,
      );
      // A checkpoint that is not one: could not read (2), not tampered (1).
      const junk = join(tempProject(), 'not-a-checkpoint.txt');
      writeFileSync(junk, 'hello\n');
      expect(runCli(['logs', 'verify', '--checkpoint', junk], view)).toMatchObject({
        status: 2,
        stderr: expect.stringContaining(`checkpoint ${junk}: not a signed note`),
      });
    },
  );
});
