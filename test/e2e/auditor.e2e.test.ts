import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectEvents } from '../helpers/events.js';
import { isolatedEnv, spawnListening } from '../helpers/listening.js';
import { BIN, runCli, tempProject } from '../helpers/project.js';
import { rfcLeafHash, rfcVerifyInclusion } from '../helpers/rfc9162.js';

const TOOLS =
  'tools:\n  hi: {type: cli, command: echo, args: ["{{who}}"], parameters: [{name: who, required: true}]}\n';

describe("an auditor's five commands (README)", () => {
  it(
    'checkpoint, proof and export are checked with the verifier key alone, and a forged proof or export is named',
    { timeout: 120_000 },
    () => {
      const project = tempProject({ '.factorly/factorly.yaml': TOOLS });
      for (const who of ['ada', 'bob', 'cy']) runCli(['call', 'hi', '--who', who], project);
      const [, bob] = runCli(['logs', '--json'], project)
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      const auditor = tempProject();
      const file = (name: string) => join(auditor, name);

      writeFileSync(file('log.pub'), runCli(['logs', 'key'], project).stdout);
      expect(runCli(['logs', 'checkpoint', '-o', file('checkpoint.txt')], project).status).toBe(0);
      const proved = runCli(['logs', 'prove', bob.call_id, '--checkpoint', file('checkpoint.txt'), '--json'], project);
      expect(proved.status).toBe(0);
      writeFileSync(file('proof.jsonl'), proved.stdout);
      expect(runCli(['logs', 'export', '-o', file('export.jsonl')], project).status).toBe(0);
      const offline = runCli(
        [
          'logs',
          'verify',
          '--offline',
          file('export.jsonl'),
          '--checkpoint',
          file('checkpoint.txt'),
          '--proof',
          file('proof.jsonl'),
          '--key',
          file('log.pub'),
        ],
        auditor,
      );
      expect(offline.stderr).toBe('');
      expect(offline.status).toBe(0);
      expect(offline.stdout).toMatch(
        /^Chain verified: \d+ events OK\nMerkle tree: \d+ leaves, root [0-9a-f]{64} \(factorly\.local\/log\/[0-9a-f]{16}\)\nCheckpoint \S+checkpoint\.txt: consistent \(\d+ events\)\n(Proof: event \d+ is in the tree of \d+ events its checkpoint signed\n){3}$/,
      );

      // The proof holds up under a verifier written from RFC 9162 alone.
      const proofs = proved.stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              leafIndex: number;
              treeSize: number;
              eventHash: string;
              proof: string[];
              rootHash: string;
              event: { type: string };
            },
        );
      expect(proofs.map((p) => p.event.type)).toEqual(['call.requested', 'shadow.decided', 'call.completed']);
      for (const p of proofs) {
        expect(
          rfcVerifyInclusion(
            p.leafIndex,
            p.treeSize,
            rfcLeafHash(Buffer.from(p.eventHash, 'hex')),
            p.proof.map((h) => Buffer.from(h, 'hex')),
            Buffer.from(p.rootHash, 'hex'),
          ),
        ).toBe(true);
      }

      const forgedProof = proved.stdout.replace(
        /"proof":\["[0-9a-f]/,
        (m) => `${m.slice(0, -1)}${m.at(-1) === '0' ? '1' : '0'}`,
      );
      writeFileSync(file('forged-proof.jsonl'), forgedProof);
      const badProof = runCli(
        ['logs', 'verify', '--proof', file('forged-proof.jsonl'), '--key', file('log.pub'), '--json'],
        auditor,
      );
      expect(badProof.status).toBe(1);
      expect(JSON.parse(badProof.stdout).findings[0]).toMatchObject({
        kind: 'bad-proof',
        reason: expect.stringContaining('does not lead to the signed root'),
      });

      const lines = readFileSync(file('export.jsonl'), 'utf8').split('\n');
      const at = lines.findIndex((line) => line.includes('"who":"bob"'));
      lines[at] = lines[at]!.replace('"who":"bob"', '"who":"eve"');
      writeFileSync(file('forged-export.jsonl'), lines.join('\n'));
      const badExport = runCli(
        [
          'logs',
          'verify',
          '--offline',
          file('forged-export.jsonl'),
          '--checkpoint',
          file('checkpoint.txt'),
          '--key',
          file('log.pub'),
          '--json',
        ],
        auditor,
      );
      expect(badExport.status).toBe(1);
      expect(JSON.parse(badExport.stdout).firstBad).toMatchObject({ seq: at + 1, kind: 'modified' });

      // Without the key, or with an export that does not start at seq 1: could not verify (2).
      expect(runCli(['logs', 'verify', '--offline', file('export.jsonl')], auditor).status).toBe(2);
      writeFileSync(file('partial.jsonl'), readFileSync(file('export.jsonl'), 'utf8').split('\n').slice(3).join('\n'));
      expect(
        runCli(['logs', 'verify', '--offline', file('partial.jsonl'), '--key', file('log.pub')], auditor),
      ).toMatchObject({ status: 2, stderr: expect.stringContaining('starts at seq 4') });
    },
  );
});

describe('witnesses and automatic checkpoints', () => {
  it(
    'every N events and at stop, each checkpoint goes to the witness dir and, on stdin, to the witness command',
    { timeout: 90_000 },
    () => {
      const anchors = tempProject();
      const project = tempProject({
        '.factorly/factorly.yaml': `log:\n  checkpoint_every: 2\n  witness_dir: ${join(anchors, 'dir')}\n  witness: ["sh", "-c", "cat > ${join(anchors, 'cmd')}-$FACTORLY_CHECKPOINT_SIZE.txt"]\n${TOOLS}`,
      });
      runCli(['call', 'hi', '--who', 'ada'], project);
      const own = readdirSync(join(project, '.factorly', 'checkpoints')).sort();
      expect(own.length).toBeGreaterThanOrEqual(2);
      expect(readdirSync(join(anchors, 'dir')).sort()).toEqual(own);
      for (const name of own) {
        const size = Number(/checkpoint-0*(\d+)\.txt/.exec(name)![1]);
        expect(readFileSync(join(anchors, `cmd-${size}.txt`), 'utf8')).toBe(
          readFileSync(join(project, '.factorly', 'checkpoints', name), 'utf8'),
        );
      }
      expect(runCli(['logs', 'verify', '--checkpoint', join(anchors, 'dir', own.at(-1)!)], project).status).toBe(0);
    },
  );

  it('while serving, a checkpoint every interval in which the log grew', { timeout: 90_000 }, async () => {
    const project = tempProject({
      '.factorly/factorly.yaml': `log: {checkpoint_every: 0, checkpoint_interval: 1s}\n${TOOLS}`,
    });
    const listening = await spawnListening([BIN, 'serve', '--port', '0'], { cwd: project, env: isolatedEnv(project) });
    try {
      runCli(['call', 'hi', '--who', 'ada'], project);
      const grown = (await projectEvents(project)).length;
      // The CLI call signed its own at its stop; the server signs what the log holds past that.
      await expect
        .poll(
          async () =>
            (await projectEvents(project))
              .filter((e) => e.type === 'log.checkpointed')
              .map((e) => (e.data as { size: number }).size)
              .some((size) => size >= grown),
          { timeout: 30_000, interval: 200 },
        )
        .toBe(true);
    } finally {
      await listening.stop();
    }
  });
});
