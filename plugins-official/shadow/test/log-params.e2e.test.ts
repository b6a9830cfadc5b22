import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly';
import { projectEvents } from '../../../test/helpers/events.js';
import { awkwardSecret, leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';
import { makeProject, runCli, type CliRun } from '../../../test/helpers/project.js';

const LONG = 'x'.repeat(3000);

// `token` resolves a `{{vault:K}}` reference the caller sends; `forward` gets the secret the same
// way and hands its value on to `search`, an inner call of the same tree.
const FORWARD = 'async function run(p) { return (await factorly.call("search", { q: p.s })).output; }';
const YAML = `log:
  max_param_bytes: 1024
tools:
  search:
    type: cli
    command: echo
    args: ["{{q}}"]
    parameters:
      - {name: q, required: true}
      - {name: page, default: "1"}
      - {name: token, hydrate_vault_refs: ["{{vault:CANARY}}"]}
    shadow: {log_params: [q, token, absent]}
  drop:
    type: cli
    command: echo
    parameters: [{name: q}]
    shadow: {deny: true, log_params: [q]}
  deploy:
    type: cli
    command: echo
    args: ["{{env}}"]
    parameters: [{name: env}, {name: note}]
    shadow: {confirm: true, log_params: [env]}
  plain:
    type: cli
    command: echo
    parameters: [{name: q}]
  forward:
    type: code
    parameters: [{name: s, required: true, hydrate_vault_refs: ["{{vault:CANARY}}"]}]
    code: ${JSON.stringify(FORWARD)}
`;

interface JsonCall {
  call_id: string;
  tool: string;
  status: string;
  params: Record<string, unknown>;
  highlight_params: Record<string, unknown> | null;
}

describe('shadow.log_params through the CLI, on a real log', () => {
  const secret = awkwardSecret();
  let root: string;
  let env: NodeJS.ProcessEnv;
  let calls: Record<string, CliRun>;
  let logged: JsonCall[];
  const cli = (args: string[], input?: string) => runCli(args, root, { env, input });

  beforeAll(() => {
    root = makeProject({ '.factorly/factorly.yaml': YAML });
    env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
    expect(cli(['vault', 'set', 'CANARY'], secret).status).toBe(0);
    calls = {
      search: cli(['call', 'search', '--q', 'octocat', '--token', '{{vault:CANARY}}']),
      forward: cli(['call', 'forward', '--s', '{{vault:CANARY}}']),
      long: cli(['call', 'search', '--q', LONG]),
      drop: cli(['call', 'drop', '--q', 'prod-db']),
      deploy: cli(['call', 'deploy', '--env', 'prod', '--note', 'friday']),
      plain: cli(['call', 'plain', '--q', 'nothing']),
    };
    const listed = cli(['logs', '--json', '-n', '20']);
    expect(listed).toMatchObject({ status: 0, stderr: '' });
    logged = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JsonCall);
  }, 180_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // The calls in the order they were made (the inner call right after the script that made it).
  const ORDER = ['search', 'forward', 'inner', 'long', 'drop', 'deploy', 'plain'] as const;
  const entry = (name: (typeof ORDER)[number]): JsonCall => logged[ORDER.indexOf(name)];

  it('records the listed params that are present, as the log keeps them', () => {
    expect(calls.search).toMatchObject({ status: 0, stdout: 'octocat\n' });
    expect(logged.map((call) => [call.tool, call.status])).toEqual([
      ['search', 'success'],
      ['forward', 'success'],
      ['search', 'success'],
      ['search', 'success'],
      ['drop', 'blocked'],
      ['deploy', 'blocked'],
      ['plain', 'success'],
    ]);
    // `absent` was not sent: not there; `page` was not listed: not highlighted.
    expect(entry('search').highlight_params).toEqual({ q: 'octocat', token: '{{vault:CANARY}}' });
    expect(entry('plain').highlight_params).toBeNull();
  });

  it('scrubs a secret handed on inside the call tree and caps a long value, exactly as the params are', () => {
    expect(entry('inner').highlight_params).toEqual({ q: '[REDACTED:CANARY]' });
    const long = entry('long');
    expect(long.highlight_params!.q).toBe(long.params.q);
    expect((long.params.q as string).length).toBeLessThan(LONG.length);
    for (const run of [...Object.values(calls), cli(['logs']), cli(['logs', '--detail'])])
      expect(leaksIn(run.stdout + run.stderr, secret)).toEqual([]);
    expect(leaksUnder(root, secret)).toEqual([]);
  });

  it('highlights denied and declined calls too', () => {
    expect(calls.drop).toMatchObject({ status: 1, stderr: 'tool "drop" is denied by shadow policy\n' });
    // No terminal to ask on and no UI: nobody can be asked, so the call is declined at once.
    expect(calls.deploy).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/^tool "deploy" requires confirmation but no confirm channel is available: /),
    });
    expect(entry('drop').highlight_params).toEqual({ q: 'prod-db' });
    expect(entry('deploy').highlight_params).toEqual({ env: 'prod' });
  });

  it('records which params to highlight with the decision, so a later config does not change them', async () => {
    const recorded = (await projectEvents(root)).filter(
      (e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided' && e.data.rule === 'log-params',
    );
    expect(recorded.map((e) => [e.data.callId, e.data.decision, e.data.facts])).toEqual([
      [entry('search').call_id, 'allow', { highlight: ['q', 'token'] }],
      [entry('inner').call_id, 'allow', { highlight: ['q'] }],
      [entry('long').call_id, 'allow', { highlight: ['q'] }],
      [entry('drop').call_id, 'allow', { highlight: ['q'] }],
      [entry('deploy').call_id, 'allow', { highlight: ['env'] }],
    ]);
  });

  it('shows them in the table, the detail block and `logs show`', () => {
    const table = cli(['logs']).stdout.split('\n');
    expect(table[0]).toMatch(/^TIME +TOOL +STATUS +DURATION +SHADOW +HIGHLIGHT$/);
    expect(table[1]).toMatch(/ q=octocat token=\{\{vault:CANARY\}\}$/);
    expect(table[1 + ORDER.indexOf('drop')]).toMatch(/ blocked .* deny +q=prod-db$/);
    expect(cli(['logs', '--detail', '--tool', 'drop']).stdout).toContain('\nHighlight: q=prod-db\n');
    const shown = cli(['logs', 'show', entry('drop').call_id]);
    expect(shown.stdout).toContain('\n  highlight: q=prod-db\n');
    const tree = JSON.parse(cli(['logs', 'show', entry('search').call_id, '--json']).stdout) as {
      root: { entry: { highlightParams: unknown } };
    };
    expect(tree.root.entry.highlightParams).toEqual({ q: 'octocat', token: '{{vault:CANARY}}' });
  });

  it('keeps the highlights recorded when the config later drops log_params', () => {
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), YAML.replaceAll(/log_params: \[[^\]]*\]/g, 'loop: false'));
    const again = cli(['logs', '--json', '-n', '20']).stdout.trim().split('\n');
    expect((JSON.parse(again[ORDER.indexOf('drop')]) as JsonCall).highlight_params).toEqual({ q: 'prod-db' });
  });
});
