import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, inject } from 'vitest';
import { projectEvents } from '../../../test/helpers/events.js';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { ECHO, natsLogBlock } from './nats-project.js';
import { freshStream } from './open-nats.js';

const chainOf = async (root: string) => (await projectEvents(root)).map((event) => `${event.seq}:${event.hash}`);

describe('logs migrate between LMDB and NATS', () => {
  it(
    'round-trips LMDB → NATS → LMDB with identical hashes, verifying both ends, and refuses a target that holds events',
    { timeout: 120_000 },
    async () => {
      const stream = freshStream('mig');
      const servers = inject('natsServers');
      const local = tempProject({ '.factorly/factorly.yaml': `tools:\n${ECHO('echo.say')}` });
      for (const text of ['one', 'two', 'three'])
        expect(runCli(['call', 'echo.say', '--text', text], local).status).toBe(0);
      expect(runCli(['logs', 'checkpoint'], local).status).toBe(0);
      const original = await chainOf(local);

      const out = runCli(
        ['logs', 'migrate', '--to', 'nats', '--servers', servers[0]!, '--stream', stream, '--replicas', '3', '--json'],
        local,
      );
      expect(out.status, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toEqual({
        from: '.factorly/events.lmdb',
        to: `the NATS stream ${stream}`,
        events: original.length,
        head: { seq: original.length, hash: original.at(-1)!.split(':')[1] },
      });
      expect(out.stderr).toContain(`copied ${original.length} of ${original.length} events`);
      const again = runCli(['logs', 'migrate', '--to', 'nats', '--servers', servers[0]!, '--stream', stream], local);
      expect(again).toMatchObject({
        status: 2,
        stderr: `Error: migrate: the NATS stream ${stream} already holds ${original.length} events: copy only into an empty log\n`,
      });

      // Another project whose log: block names the stream: it reads it, verifies it, copies it back to a file.
      const shared = tempProject({
        '.factorly/factorly.yaml': `${natsLogBlock(stream, servers)}tools:\n${ECHO('echo.say')}`,
      });
      expect(JSON.parse(runCli(['logs', 'verify', '--json'], shared).stdout)).toMatchObject({
        ok: true,
        verified: original.length,
      });
      // The checkpoint taken before the move still anchors the log's history on the stream.
      const [before] = readdirSync(join(local, '.factorly', 'checkpoints'));
      const anchored = ['--checkpoint', join(local, '.factorly', 'checkpoints', before!)];
      const key = ['--key', join(local, '.factorly', 'log.pub')];
      expect(JSON.parse(runCli(['logs', 'verify', '--json', ...anchored, ...key], shared).stdout)).toMatchObject({
        ok: true,
        checkpoints: [{ status: 'consistent' }],
      });
      const back = runCli(['logs', 'migrate', '--to', 'lmdb', '--json'], shared);
      expect(back.status, back.stderr).toBe(0);
      expect(JSON.parse(back.stdout)).toMatchObject({
        from: `the NATS stream ${stream}`,
        to: '.factorly/events.lmdb',
        events: original.length,
      });
      expect(await chainOf(shared)).toEqual(original);
      const refused = runCli(['logs', 'migrate', '--to', 'lmdb'], shared);
      expect(refused).toMatchObject({
        status: 2,
        stderr: `Error: migrate: .factorly/events.lmdb already holds ${original.length} events: copy only into an empty log\n`,
      });
      // Switched back to the file: it verifies, its own checkpoint included.
      writeFileSync(join(shared, '.factorly', 'factorly.yaml'), `tools:\n${ECHO('echo.say')}`);
      expect(JSON.parse(runCli(['logs', 'verify', '--json'], shared).stdout)).toMatchObject({
        ok: true,
        verified: original.length,
      });
    },
  );

  it('says what is missing: a source file, a stream', () => {
    const empty = tempProject({ '.factorly/factorly.yaml': `tools:\n${ECHO('echo.say')}` });
    expect(runCli(['logs', 'migrate', '--to', 'nats', '--stream', 's'], empty)).toMatchObject({
      status: 2,
      stderr: 'Error: migrate: no event log at .factorly/events.lmdb to copy\n',
    });
    expect(runCli(['logs', 'migrate', '--to', 'lmdb'], empty)).toMatchObject({
      status: 2,
      stderr:
        'Error: migrate: which NATS stream? Name it in the log: block (engine: nats) or with --servers and --stream\n',
    });
    expect(existsSync(join(empty, '.factorly', 'events.lmdb'))).toBe(false);
  });
});
