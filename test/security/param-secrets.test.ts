import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awkwardSecret, leaksIn, leaksUnder } from '../helpers/leaks.js';
import { runCli, tempProject } from '../helpers/project.js';

/**
 * An agent may send, as a param, the very value a tool's config refers to (it guessed it, or read it
 * from somewhere it should not have). The call's first events are written before its tool runs, so the
 * value must be known to the scrubber before then: the secrets the tool's config refers to are read
 * before anything about the call is recorded, also for a call the rules then refuse.
 */
const TOOLS = `tools:
  search:
    type: cli
    command: echo
    args: ["searched"]
    env: {TOKEN: "{{vault:K}}"}
    parameters: [{name: q, required: true}]
    shadow: {rate_limit: 1/min, log_params: [q]}
`;

describe('a secret sent as a param', () => {
  it(
    'never reaches the log, the audit view or the log file, on an allowed call and a refused one',
    { timeout: 120_000 },
    () => {
      const secret = awkwardSecret();
      const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
      const env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
      const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
      expect(cli(['vault', 'set', 'K'], secret)).toMatchObject({ status: 0 });

      const allowed = cli(['call', 'search', '--q', secret]);
      expect(allowed).toMatchObject({ status: 0 });
      expect(allowed.stdout).toContain('searched');
      const refused = cli(['call', 'search', '--q', `again ${secret}`]);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr + refused.stdout).toMatch(/rate limited/);

      const logs = cli(['logs', '--json']);
      expect(logs).toMatchObject({ status: 0 });
      const entries = logs.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string; status: string });
      expect(entries.map((e) => e.status).sort()).toEqual(['blocked', 'success']);
      expect(logs.stdout).toContain('[REDACTED:K]');
      for (const output of [allowed, refused, logs]) expect(leaksIn(output.stdout + output.stderr, secret)).toEqual([]);
      // The vault file holds the value encrypted; every other file of the project must not hold it at all.
      rmSync(join(root, '.factorly', 'vault.enc'));
      expect(leaksUnder(join(root, '.factorly'), secret)).toEqual([]);
    },
  );
});
