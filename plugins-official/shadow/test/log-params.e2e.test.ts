import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly';
import { projectEvents } from '../../../test/helpers/events.js';
import { awkwardSecret, leaksIn, leaksUnder } from '../../../test/helpers/leaks.js';
import { runCli, tempProject, type CliRun } from '../../../test/helpers/project.js';

const LONG = 'x'.repeat(3000);

// `search` references the vault secret itself, so the call tree knows its value and scrubs it from
// whatever an agent passes; `token` resolves a `{{vault:K}}` reference the caller sends.
const YAML = `log:
  max_param_bytes: 1024
tools:
  search:
    type: cli
    command: echo
    args: ["{{q}}"]
    env: {TOKEN: "{{vault:CANARY}}"}
    parameters:
      - {name: q, required: true}
      - {name: page, default: "1"}
      - {name: token, hydrate_vault_refs: true}
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
    root = tempProject({ '.factorly/factorly.yaml': YAML });
    env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
    expect(cli(['vault', 'set', 'CANARY'], secret).status).toBe(0);
    calls = {
      search: cli(['call', 'search', '--q', 'octocat', '--token', '{{vault:CANARY}}']),
      leaked: cli(['call', 'search', '--q', secret]),
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

  const entry = (index: number): JsonCall => logged[index];

  it('records the listed params that are present, as the log keeps them', () => {
    expect(calls.search).toMatchObject({ status: 0, stdout: 'octocat\n' });
    expect(logged.map((call) => [call.tool, call.status])).toEqual([
      ['search', 'success'],
      ['search', 'success'],
      ['search', 'success'],
      ['drop', 'blocked'],
      ['deploy', 'blocked'],
      ['plain', 'success'],
    ]);
    // `absent` was not sent: not there; `page` was not listed: not highlighted.
    expect(entry(0).highlight_params).toEqual({ q: 'octocat', token: '{{vault:CANARY}}' });
    expect(entry(5).highlight_params).toBeNull();
  });

  it('scrubs a secret value and caps a long one exactly as the params are', () => {
    expect(entry(1).highlight_params).toEqual({ q: '[REDACTED:CANARY]' });
    const long = entry(2);
    expect(long.highlight_params!.q).toBe(long.params.q);
    expect((long.params.q as string).length).toBeLessThan(LONG.length);
    for (const run of [...Object.values(calls), cli(['logs']), cli(['logs', '--detail'])])
      expect(leaksIn(run.stdout + run.stderr, secret)).toEqual([]);
    expect(leaksUnder(root, secret)).toEqual([]);
  });

  it('highlights blocked and unconfirmed calls too', () => {
    expect(calls.drop).toMatchObject({ status: 1, stderr: 'tool "drop" is denied by shadow policy\n' });
    expect(calls.deploy.status).toBe(1);
    expect(entry(3).highlight_params).toEqual({ q: 'prod-db' });
    expect(entry(4).highlight_params).toEqual({ env: 'prod' });
  });

  it('records which params to highlight with the decision, so a later config does not change them', async () => {
    const recorded = (await projectEvents(root)).filter(
      (e): e is Recorded<'shadow.decided'> => e.type === 'shadow.decided' && e.data.rule === 'log_params',
    );
    expect(recorded.map((e) => [e.data.callId, e.data.decision, e.data.facts])).toEqual([
      [entry(0).call_id, 'allow', { highlight: ['q', 'token'] }],
      [entry(1).call_id, 'allow', { highlight: ['q'] }],
      [entry(2).call_id, 'allow', { highlight: ['q'] }],
      [entry(3).call_id, 'allow', { highlight: ['q'] }],
      [entry(4).call_id, 'allow', { highlight: ['env'] }],
    ]);
  });

  it('shows them in the table, the detail block and `logs show`', () => {
    const table = cli(['logs']).stdout.split('\n');
    expect(table[0]).toMatch(/^TIME +TOOL +STATUS +DURATION +SHADOW +HIGHLIGHT$/);
    expect(table[1]).toMatch(/ q=octocat token=\{\{vault:CANARY\}\}$/);
    expect(table[4]).toMatch(/ blocked .* deny +q=prod-db$/);
    expect(cli(['logs', '--detail', '--tool', 'drop']).stdout).toContain('\nHighlight: q=prod-db\n');
    const shown = cli(['logs', 'show', entry(3).call_id]);
    expect(shown.stdout).toContain('\n  highlight: q=prod-db\n');
    const tree = JSON.parse(cli(['logs', 'show', entry(0).call_id, '--json']).stdout) as {
      root: { entry: { highlightParams: unknown } };
    };
    expect(tree.root.entry.highlightParams).toEqual({ q: 'octocat', token: '{{vault:CANARY}}' });
  });

  it('keeps the highlights recorded when the config later drops log_params', () => {
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), YAML.replaceAll(/log_params: \[[^\]]*\]/g, 'loop: false'));
    const again = cli(['logs', '--json', '-n', '20']).stdout.trim().split('\n');
    expect((JSON.parse(again[3]) as JsonCall).highlight_params).toEqual({ q: 'prod-db' });
  });
});
