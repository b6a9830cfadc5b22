import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isolatedEnv } from '../../../test/helpers/listening.js';
import { BIN, runCli, tempProject } from '../../../test/helpers/project.js';
import { closeAll, natsLog } from './open-nats.js';
import { ECHO, natsLogBlock, natsProject } from './nats-project.js';
import type { EventLog } from 'factorly/events';

const opened: EventLog[] = [];

describe('log: {engine: nats} chosen by config', () => {
  it('records calls on the stream, writes no LMDB log, and logs, logs verify and stats read it', async () => {
    const { root, stream } = natsProject(ECHO('echo.say'));
    expect(runCli(['call', 'echo.say', '--text', 'one'], root)).toMatchObject({ status: 0, stdout: 'one\n' });
    expect(runCli(['call', 'echo.say', '--text', 'two'], root)).toMatchObject({ status: 0, stdout: 'two\n' });
    expect(existsSync(join(root, '.factorly', 'events.lmdb'))).toBe(false);
    const calls = runCli(['logs', '--json'], root)
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(calls.map((call) => [call.tool, call.status])).toEqual([
      ['echo.say', 'success'],
      ['echo.say', 'success'],
    ]);
    const verified = JSON.parse(runCli(['logs', 'verify', '--json'], root).stdout);
    expect(verified).toMatchObject({
      ok: true,
      status: 'verified',
      tree: { origin: `nats/${stream}/factorly.${stream}.events` },
    });
    const log = natsLog(stream);
    opened.push(log);
    const events = [];
    for await (const event of log.read()) events.push(event);
    expect(verified.verified).toBe(events.length);
    expect(events.filter((event) => event.type === 'call.completed')).toHaveLength(2);
    expect(JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout)).toMatchObject({
      calls: 2,
      byStatus: { success: 2 },
    });
    await closeAll(opened);
  });

  it(
    'follows calls another process records on the stream (logs --follow), and signs checkpoints of the shared tree',
    { timeout: 60_000 },
    async () => {
      const { root } = natsProject(ECHO('echo.say'));
      expect(runCli(['call', 'echo.say', '--text', 'before'], root).status).toBe(0);
      const follower = spawn(process.execPath, [BIN, 'logs', '--follow', '--json', '-n', '1'], {
        cwd: root,
        env: isolatedEnv(root),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      follower.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const lines = () =>
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { status: string; params: unknown });
      await expect.poll(() => lines().length, { timeout: 30_000 }).toBe(1);
      expect(runCli(['call', 'echo.say', '--text', 'during'], root).status).toBe(0);
      await expect.poll(() => lines().length, { timeout: 30_000 }).toBe(2);
      follower.kill('SIGTERM');
      expect(JSON.stringify(lines()[1])).toContain('during');
      expect(JSON.parse(runCli(['logs', 'key', '--json'], root).stdout).name).toMatch(
        /^nats\/p-[0-9a-f]+\/factorly\.p-[0-9a-f]+\.events$/,
      );

      expect(runCli(['logs', 'checkpoint'], root).status).toBe(0);
      const [checkpoint] = readdirSync(join(root, '.factorly', 'checkpoints'));
      const verified = JSON.parse(
        runCli(['logs', 'verify', '--json', '--checkpoint', join(root, '.factorly', 'checkpoints', checkpoint!)], root)
          .stdout,
      );
      expect(verified).toMatchObject({ ok: true, findings: [], checkpoints: [{ status: 'consistent' }] });
    },
  );

  it('refuses an engine no plugin provides, naming the file, the line and the key', () => {
    const root = tempProject({
      '.factorly/factorly.yaml': `tools:\n${ECHO('echo.say')}log:\n  durability: fsync\n  engine: kafka\n`,
    });
    expect(runCli(['call', 'echo.say', '--text', 'x'], root)).toMatchObject({
      status: 1,
      stderr:
        'Error: config: log.engine: no log engine "kafka" (known: lmdb, nats; is its plugin installed?) (.factorly/factorly.yaml:10)\n',
    });
    expect(existsSync(join(root, '.factorly', 'events.lmdb'))).toBe(false);
  });

  it('refuses a bad key of the nats engine, naming it and its line, before anything is recorded', () => {
    const bad = (block: string) =>
      runCli(
        ['call', 'echo.say', '--text', 'x'],
        tempProject({ '.factorly/factorly.yaml': `${block}tools:\n${ECHO('echo.say')}` }),
      );
    expect(bad(natsLogBlock('s', ['nats://127.0.0.1:1'], '  stream_name: x\n')).stderr).toBe(
      'Error: config: log.stream_name: not a key of the nats log engine (servers, stream, subject, credentials, replicas, timeout, allow_mutable_stream) (.factorly/factorly.yaml:7)\n',
    );
    expect(bad('log:\n  engine: nats\n  servers: localhost\n  stream: s\n').stderr).toBe(
      'Error: config: log.servers: expected a list of server URLs (nats://host:port), got "localhost" (.factorly/factorly.yaml:3)\n',
    );
    expect(bad('log:\n  engine: nats\n  servers: [nats://127.0.0.1:1]\n  stream: "a b"\n').stderr).toContain(
      'log.stream: expected a stream name',
    );
    expect(bad('log:\n  engine: nats\n  servers: [nats://127.0.0.1:1]\n  stream: s\n  replicas: 9\n').stderr).toContain(
      'log.replicas: expected a whole number from 1 to 5, got 9 (.factorly/factorly.yaml:5)',
    );
  });

  it('refuses a call before its tool runs when the stream cannot be reached', () => {
    const root = tempProject({
      '.factorly/factorly.yaml': `log:\n  engine: nats\n  servers: [nats://127.0.0.1:1]\n  stream: s\n  timeout: 500\ntools:\n  touch.it:\n    type: cli\n    command: touch\n    args: [ran]\n`,
    });
    const run = runCli(['call', 'touch.it'], root);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /refused before the tool ran: the call could not be recorded \(cannot read the event log nats\/s\/factorly\.s\.events: .*no answer within 0\.5s: is the stream reachable, with a quorum of its servers\?\)/,
    );
    expect(existsSync(join(root, 'ran'))).toBe(false);
  });
});
