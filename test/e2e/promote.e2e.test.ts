import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../helpers/project.js';
import { projectEvents } from '../helpers/events.js';

function lastRunSha(root: string): string {
  const rows = runCli(['logs', '--json', '--tool', 'factorly.code'], root)
    .stdout.trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return rows.at(-1).source_sha as string;
}

const promotedEvents = async (root: string) =>
  (await projectEvents(root)).filter((event) => event.type === 'tool.promoted').map((event) => event.data);

describe('tools promote (found through factorly logs)', () => {
  it('promotes with a 6-char prefix from logs --json, records tool.promoted, and guards names', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    const code = 'async function run(p) { return `${p.word} ${p.n * 2} ${p.flag}`; }';
    expect(
      runCli(['call', 'factorly.code', '--code', code, '--params', '{"word":"hey","n":21,"flag":true}'], root).stdout,
    ).toBe('hey 42 true');
    const sha = lastRunSha(root);
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    const done = runCli(
      ['tools', 'promote', '--from-sha', sha.slice(0, 6), '--name', 'word.twice', '--no-confirm', '--json'],
      root,
    );
    expect(done.status).toBe(0);
    const result = JSON.parse(done.stdout);
    expect(result).toMatchObject({ name: 'word.twice', file: '.factorly/word.twice.yaml', sha });
    expect(result.parameters).toEqual([
      { name: 'flag', type: 'boolean', required: false, default: true },
      { name: 'n', type: 'integer', required: false, default: 21 },
      { name: 'word', type: 'string', required: false, default: 'hey' },
    ]);
    expect(readFileSync(join(root, '.factorly', 'word.twice.yaml'), 'utf8')).toContain(
      `# Promoted from factorly.code run`,
    );
    expect(runCli(['call', 'word.twice'], root).stdout).toBe('hey 42 true');
    expect(runCli(['call', 'word.twice', '--n', '5', '--flag', 'false'], root).stdout).toBe('hey 10 false');
    expect(await promotedEvents(root)).toEqual([
      expect.objectContaining({ name: 'word.twice', fromSha: sha, file: '.factorly/word.twice.yaml' }),
    ]);
    const again = runCli(['tools', 'promote', '--from-sha', sha.slice(0, 6), '--name', 'word.twice'], root);
    expect(again).toMatchObject({
      status: 1,
      stderr: 'Error: tool "word.twice" already exists; pass --overwrite to replace it\n',
    });
    expect(
      runCli(['tools', 'promote', '--from-sha', sha.slice(0, 6), '--name', 'word.twice', '--overwrite'], root).status,
    ).toBe(0);
    expect(readFileSync(join(root, '.factorly', 'word.twice.yaml'), 'utf8')).toContain('confirm: true');
  });

  it('refuses a too short, an unknown and an ambiguous prefix', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    // Two scripts whose shas share their first 4 hex chars (found by hashing candidates here).
    const seen = new Map<string, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair; i += 1) {
      const code = `async function run() { return ${i}; }`;
      const prefix = createHash('sha256').update(code).digest('hex').slice(0, 4);
      const other = seen.get(prefix);
      if (other) pair = [other, code];
      else seen.set(prefix, code);
    }
    for (const code of pair) expect(runCli(['call', 'factorly.code', '--code', code], root).status).toBe(0);
    const prefix = createHash('sha256').update(pair[0]).digest('hex').slice(0, 4);
    expect(runCli(['tools', 'promote', '--from-sha', prefix, '--name', 'x'], root).stderr).toMatch(
      new RegExp(
        `^Error: sha prefix "${prefix}" is ambiguous: matches 2 distinct scripts \\(${prefix}[0-9a-f]{8}…, ${prefix}[0-9a-f]{8}…\\) — use a longer prefix\\n$`,
      ),
    );
    expect(runCli(['tools', 'promote', '--from-sha', 'abc', '--name', 'x'], root).stderr).toBe(
      'Error: sha prefix "abc" is too short (need at least 4 hex chars)\n',
    );
    const unknown = [...'0123456789abcdef'].map((d) => d.repeat(8)).find((p) => !p.startsWith(prefix))!;
    expect(runCli(['tools', 'promote', '--from-sha', unknown, '--name', 'x'], root).stderr).toBe(
      `Error: no recorded run found with source_sha prefix "${unknown}"\n`,
    );
    expect(existsSync(join(root, '.factorly', 'x.yaml'))).toBe(false);
  });
});

describe('the seed’s oversight block for factorly.code', () => {
  it('accepts `factorly.code: {type: builtin, shadow: …}` and lays it over the built-in', () => {
    const yaml =
      'tools:\n  factorly.code:\n    type: builtin\n    timeout: 5s\n    shadow:\n      confirm: true\n      max_calls: 50\n      rate_limit: 10/min\n';
    const root = tempProject({ '.factorly/factorly.yaml': yaml });
    const shown = JSON.parse(runCli(['tools', 'show', 'factorly.code', '--json'], root).stdout);
    expect(shown).toMatchObject({
      name: 'factorly.code',
      type: 'code',
      timeoutMs: 5000,
      shadow: { confirm: true, max_calls: 50, rate_limit: '10/min' },
    });
    // confirm: true and no terminal: the call is denied, and says why.
    expect(runCli(['call', 'factorly.code', '--code', 'async function run() { return 1; }'], root)).toMatchObject({
      status: 1,
      stdout: '',
    });
  });
});
