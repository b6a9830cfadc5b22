import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { projectEvents } from '../helpers/events.js';
import { awkwardSecret, leaksIn, leaksUnder } from '../helpers/leaks.js';
import { runCli, tempProject } from '../helpers/project.js';

/**
 * `hyd.echo` prints its param reversed: a tool whose output no scrubber recognises. Were a hydrating
 * param to resolve any reference the agent writes, the agent could read every secret of every backend
 * through it, reversed. Its param may hydrate only what its config lists: vault A and env HYD_ENV.
 */
const REVERSE = "console.log([...process.argv[1]].reverse().join(''))";
const TOOLS = `tools:
  hyd.echo:
    type: cli
    command: node
    args: ["-e", ${JSON.stringify(REVERSE)}, "{{s}}"]
    parameters:
      - name: s
        required: true
        hydrate_vault_refs: ["{{vault:A}}", "{{env:HYD_ENV}}"]
`;

const reversed = (text: string): string => [...text].reverse().join('');

describe('a hydrating parameter resolves only the references its config lists', () => {
  it(
    'hydrates a listed reference, keeps any other literal, and records the refusal by name only',
    { timeout: 120_000 },
    async () => {
      const [a, other, hostValue] = [awkwardSecret(), awkwardSecret(), `host-${randomBytes(8).toString('hex')}`];
      const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
      const env = {
        FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex'),
        HYD_ENV: `listed-${randomBytes(8).toString('hex')}`,
        HYD_HOST: hostValue,
      };
      const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
      expect(cli(['vault', 'set', 'A'], a)).toMatchObject({ status: 0 });
      expect(cli(['vault', 'set', 'OTHER'], other)).toMatchObject({ status: 0 });

      const listed = cli(['call', 'hyd.echo', '--s', '{{vault:A}}|{{env:HYD_ENV}}']);
      expect(listed).toMatchObject({ status: 0, stdout: `${reversed(`${a}|${env.HYD_ENV}`)}\n` });
      const probe = '{{vault:OTHER}} {{env:HYD_HOST}} {{vault:A}}';
      const refused = cli(['call', 'hyd.echo', '--s', probe]);
      expect(refused).toMatchObject({ status: 0 });
      // The unlisted references reach the tool as written; the listed one beside them is still hydrated.
      expect(refused.stdout).toBe(`${reversed(`{{vault:OTHER}} {{env:HYD_HOST}} ${a}`)}\n`);

      const events = await projectEvents(root);
      const refusals = events.filter((e) => e.type === 'call.hydration_refused') as Recorded[];
      expect(refusals.map((e) => e.data)).toEqual([
        { callId: expect.any(String), params: { s: ['{{vault:OTHER}}', '{{env:HYD_HOST}}'] } },
      ]);
      const refusedCall = (refusals[0].data as { callId: string }).callId;
      const show = cli(['logs', 'show', refusedCall]);
      expect(show).toMatchObject({ status: 0 });
      expect(show.stdout).toContain('param s: refused hydration of {{vault:OTHER}}, {{env:HYD_HOST}}');

      // The refused values appear nowhere, in any form, reversed or not.
      const views = [listed, refused, show, cli(['logs', '--json']), cli(['logs', 'show', refusedCall, '--json'])];
      for (const view of views) {
        for (const value of [other, hostValue]) {
          expect(leaksIn(view.stdout + view.stderr, value)).toEqual([]);
          expect(leaksIn(view.stdout + view.stderr, reversed(value))).toEqual([]);
        }
      }
      rmSync(join(root, '.factorly', 'vault.enc'));
      for (const value of [other, hostValue, reversed(other), reversed(hostValue)])
        expect(leaksUnder(join(root, '.factorly'), value)).toEqual([]);
    },
  );
});
