import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as rest } from '@factorly/plugin-provider-rest';
import { plugin as vault } from '@factorly/plugin-vault';
import type { Recorded } from '../../src/events/envelope.js';
import { projectEvents } from '../helpers/events.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { awkwardSecret, leaksIn, leaksUnder } from '../helpers/leaks.js';
import { runCli, tempProject } from '../helpers/project.js';

/**
 * A script's params are recorded (the root's `call.requested`) before the script runs, so before any
 * tool it calls resolves its secrets. An agent that sends a secret's value to a script must find it
 * scrubbed there too: every secret the tree could reach is read before the root is recorded.
 */
const LEAK_TOOL = `tools:
  leak:
    type: cli
    command: node
    args: ["-e", "console.log(process.env.TOKEN.length)"]
    env: {TOKEN: "{{vault:K}}"}
`;
const CALLS_LEAK = 'async function run(p) { return (await factorly.call("leak", {})).output + " " + p.x.length; }';

describe('a secret an agent sends to a script', () => {
  it(
    'is absent from every file under .factorly/ and from logs --json after factorly.code runs a tool resolving it',
    { timeout: 120_000 },
    async () => {
      const secret = awkwardSecret();
      const root = tempProject({ '.factorly/factorly.yaml': LEAK_TOOL });
      const env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
      const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
      expect(cli(['vault', 'set', 'K'], secret)).toMatchObject({ status: 0 });

      // `--params` is the script's own params here (factorly.code has a parameter named params).
      const ran = cli(['call', 'factorly.code', '--code', CALLS_LEAK, '--params', JSON.stringify({ x: secret })]);
      expect(ran).toMatchObject({ status: 0 });
      expect(ran.stdout).toContain(`${secret.length}\n ${secret.length}`);
      // Refused as invalid (no parameter x): its params are recorded all the same.
      const refused = cli(['call', 'factorly.code', '--code', CALLS_LEAK, '--x', secret]);
      expect(refused.status).not.toBe(0);

      const events = await projectEvents(root);
      const roots = events.filter(
        (e): e is Recorded<'call.requested'> => e.type === 'call.requested' && e.data.tool === 'factorly.code',
      );
      expect(roots).toHaveLength(2);
      for (const e of roots) expect(JSON.stringify(e.data.params)).toContain('[REDACTED:K]');
      const logs = cli(['logs', '--json']);
      expect(logs).toMatchObject({ status: 0 });
      for (const output of [ran, refused, logs]) expect(leaksIn(output.stdout + output.stderr, secret)).toEqual([]);
      rmSync(join(root, '.factorly', 'vault.enc'));
      expect(leaksUnder(join(root, '.factorly'), secret)).toEqual([]);
    },
  );
});

/** `outer` (code) → `relay` (code) → `api.get` (rest, the secret in a header), on a loopback server. */
function chain(base: string, marker: string): string {
  const outer = 'async function run(p) { return (await factorly.call("relay", { note: p.note })).output; }';
  const relay = 'async function run(p) { return (await factorly.call("api.get", {})).output; }';
  const record = `require('fs').appendFileSync(${JSON.stringify(marker)}, 'ran\\n'); console.log('cmd-value-123')`;
  return `vault_backends:
  cmd:
    get: {command: ${JSON.stringify(process.execPath)}, args: ["-e", ${JSON.stringify(record)}]}
tools:
  outer:
    type: code
    parameters: [{name: note, required: true}]
    code: ${JSON.stringify(outer)}
  relay:
    type: code
    parameters: [{name: note}]
    code: ${JSON.stringify(relay)}
  api.get:
    type: rest
    base_url: ${base}
    method: GET
    path: /whoami
    headers: {X-Key: "{{vault:R}}"}
  uses.cmd:
    type: cli
    command: echo
    args: ["{{cmd:KEY}}"]
`;
}

let server: Server | undefined;
afterEach(async () => {
  delete process.env.FACTORLY_VAULT_PASSWORD;
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

describe('a secret reached through code → code → rest', () => {
  it('is scrubbed from the root’s recorded params, and a command-backed secret is not read ahead', async () => {
    // ASCII only: a header carries bytes, and the server counts the characters it got.
    const secret = `tok-${randomBytes(12).toString('base64')}/"+ ${randomBytes(4).toString('hex')}`;
    server = createServer((req, res) => res.end(`key length ${String(req.headers['x-key']).length}`));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const marker = join(tempProject(), 'cmd-backend-ran');
    const root = tempProject({ '.factorly/factorly.yaml': chain(base, marker) });
    const password = randomBytes(9).toString('hex');
    expect(
      runCli(['vault', 'set', 'R'], root, { env: { FACTORLY_VAULT_PASSWORD: password }, input: secret }),
    ).toMatchObject({
      status: 0,
    });
    process.env.FACTORLY_VAULT_PASSWORD = password;
    const { kernel, log } = await startTestKernel(chain(base, marker), [vault, quickjs, code, rest], root);
    try {
      const outcome = await kernel.pipeline.call({ tool: 'outer', params: { note: `see ${secret}` }, iface: 'mcp' });
      expect(outcome).toMatchObject({ status: 'success', output: `key length ${secret.length}` });
      const events = await eventsOf(log);
      const requested = events.filter((e): e is Recorded<'call.requested'> => e.type === 'call.requested');
      expect(requested.map((e) => e.data.tool)).toEqual(['outer', 'relay', 'api.get']);
      expect(requested[0].data.params).toEqual({ note: 'see [REDACTED:R]' });
      expect(leaksIn(JSON.stringify(events), secret)).toEqual([]);
      // The password manager's command runs when a call needs its secret, not for every script.
      expect(existsSync(marker)).toBe(false);
    } finally {
      await kernel.stop();
    }
  });
});
