import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/project.js';
import { awkwardSecret, canaryProject, cliTools } from './canary-fixtures.js';
import { leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';

describe('canary: a vault secret used by CLI tools never shows up anywhere', () => {
  it(
    'is redacted from every CLI output and absent from .factorly/ (LMDB included) and the global dir',
    { timeout: 180_000 },
    () => {
      const secret = awkwardSecret();
      const { root, env } = canaryProject(cliTools('CANARY'));
      const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
      expect(cli(['vault', 'set', 'CANARY'], secret).status).toBe(0);

      const outputs = [
        cli(['call', 'leak']),
        cli(['call', 'leak', '--json']),
        cli(['call', 'leak', '--code', '3']),
        cli(['call', 'leak', '--code', '3', '--json']),
        cli(['call', 'hydrated', '--token', '{{vault:CANARY}}']),
        cli(['logs', '--json']),
        cli(['logs']),
        cli(['vault', 'list']),
      ];
      const sha = createHash('sha256').update(secret).digest('hex');
      expect(outputs[0]).toMatchObject({ status: 0 });
      expect(outputs[0].stdout).toContain(`sha256=${sha}`);
      expect(
        outputs[0].stdout
          .split('\n')
          .slice(1, 8)
          .every((line) => line.includes('[REDACTED:CANARY]')),
      ).toBe(true);
      expect(outputs[2]).toMatchObject({ status: 3 });
      expect(outputs[4].stdout).toBe('[REDACTED:CANARY]\n');
      expect(outputs[5].stdout).toContain('{{vault:CANARY}}');

      for (const [i, run] of outputs.entries())
        expect(leaksIn(run.stdout + run.stderr, secret), `output ${i}`).toEqual([]);
      expect(leaksUnder(root, secret)).toEqual([]);
    },
  );
});
