import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgedCheckpoint } from '../../../test/helpers/forger.js';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { ECHO, natsLogBlock } from './nats-project.js';
import { freshStream, natsLog } from './open-nats.js';

const verify = (root: string, ...args: string[]) => {
  const run = runCli(['logs', 'verify', '--json', ...args], root);
  return { status: run.status, report: JSON.parse(run.stdout) as { ok: boolean; findings: { kind: string }[] } };
};

describe('checkpoints of a log several nodes write, each signing with its own key', () => {
  it(
    'verify with logs verify on every node (two, then three), against the keys the writers announced; --key restricts them; an unannounced key is forged',
    { timeout: 120_000 },
    async () => {
      const stream = freshStream('keys');
      const node = () =>
        tempProject({ '.factorly/factorly.yaml': `${natsLogBlock(stream)}tools:\n${ECHO('echo.say')}` });
      const [a, b, c] = [node(), node(), node()];
      expect(runCli(['call', 'echo.say', '--text', 'one'], a).status).toBe(0);
      expect(runCli(['logs', 'checkpoint'], a).status).toBe(0);
      expect(runCli(['logs', 'checkpoint'], b).status).toBe(0);
      for (const root of [a, b]) expect(verify(root)).toMatchObject({ status: 0, report: { ok: true, findings: [] } });

      expect(runCli(['logs', 'checkpoint'], c).status).toBe(0);
      for (const root of [a, b, c])
        expect(verify(root)).toMatchObject({ status: 0, report: { ok: true, findings: [] } });
      const ownKey = readFileSync(join(a, '.factorly', 'log.pub'), 'utf8').trim();
      expect(verify(a, '--key', ownKey)).toMatchObject({
        status: 1,
        report: { ok: false, findings: [{ kind: 'forged-checkpoint' }, { kind: 'forged-checkpoint' }] },
      });

      const log = natsLog(stream);
      await log.append([forgedCheckpoint(await log.tree!())]);
      await log.close();
      expect(verify(b)).toMatchObject({ status: 1, report: { ok: false, findings: [{ kind: 'forged-checkpoint' }] } });
    },
  );
});
