import { describe, expect, it } from 'vitest';
import { runCli, tempProject, type CliRun } from '../helpers/project.js';

/** A help screen wide enough that oclif never wraps a paragraph: any line break left is the source's. */
const WIDE = { env: { OCLIF_COLUMNS: '400' } };

function jsonError(run: CliRun): { code?: string; message: string; usage?: string } {
  return (JSON.parse(run.stdout) as { error: { code?: string; message: string; usage?: string } }).error;
}

describe('factorly help', () => {
  it('shows the call synopsis: <tool>, its params, --params and --json', () => {
    const help = runCli(['call', '--help'], tempProject(), WIDE);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/USAGE\n {2}\$ factorly call <tool> .*--params <json>.*--json/);
    expect(help.stdout).toMatch(/ARGUMENTS\n {2}<?TOOL>? +The tool to call/i);
    expect(help.stdout).toMatch(/--json +Print the tool's outcome as JSON/);
  });

  it('writes each description paragraph on one line when the terminal is wide enough', () => {
    const help = runCli(['call', '--help'], tempProject(), WIDE).stdout;
    const lineOf = (text: string, start: string): string | undefined =>
      text.split('\n').find((line) => line.includes(start));
    expect(lineOf(help, 'Each --name value pair is a parameter.')).toContain(
      "--params is that parameter's value instead.",
    );
    expect(lineOf(help, "The tool's output goes to stdout")).toContain("the process exits with the tool's exit code.");
    const verify = runCli(['logs', 'verify', '--help'], tempProject(), WIDE).stdout;
    expect(lineOf(verify, 'Walks the hash chain')).toContain(
      '(modified, deleted, inserted, reordered, corrupt, truncated)',
    );
  });
});

describe('factorly parse errors', () => {
  it('names the flag, the value given and the expected form, with the usage line, exit 2', () => {
    const root = tempProject();
    const tail = runCli(['logs', '--tail', 'x'], root);
    expect(tail.status).toBe(2);
    expect(tail.stderr).toMatch(/^Error: --tail expects an integer, got "x"\n/);
    expect(tail.stderr).toMatch(/\nUsage: factorly logs \[-c <value>\] \[-n <value>\]/);
    expect(tail.stderr).toContain('factorly logs --help');

    const format = runCli(['logs', 'export', '--format', 'xml'], root);
    expect(format.status).toBe(2);
    expect(format.stderr).toMatch(/^Error: --format expects one of jsonl, otlp-json, got "xml"\n/);

    const missing = runCli(['vault', 'get'], root);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^Error: missing the KEY argument \(Key name\.\)\n/);
    expect(missing.stderr).toMatch(/\nUsage: factorly vault get KEY /);

    const extra = runCli(['vault', 'get', 'a', 'b'], root);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toMatch(/^Error: unexpected argument "b" \(vault get takes KEY\)\n/);
  });

  it('suggests the flag meant for an unknown one', () => {
    const run = runCli(['logs', '--tial', '3'], tempProject());
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^Error: unknown flag --tial; did you mean "--tail"/);
    const inline = runCli(['logs', 'export', '--formt=jsonl'], tempProject());
    expect(inline.stderr).toMatch(/^Error: unknown flag --formt; did you mean "--format"\?\n/);
  });

  it('prints a parse error as a JSON error object under --json', () => {
    const run = runCli(['logs', '--tail', 'x', '--json'], tempProject());
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('');
    expect(jsonError(run)).toMatchObject({
      code: 'USAGE',
      message: '--tail expects an integer, got "x"',
      usage: expect.stringMatching(/^factorly logs /),
    });
    // call parses its own argv, and fails the same way; so does a failure after parsing.
    const call = runCli(['call', 'greet', '--params', '[1]', '--json'], tempProject());
    expect(call.status).toBe(2);
    expect(jsonError(call)).toMatchObject({ code: 'USAGE', message: '--params must be a JSON object' });
    const broken = tempProject({ '.factorly/factorly.yaml': 'tools: [\n' });
    for (const command of [['call', 'greet'], ['tools']]) {
      const run = runCli([...command, '--json'], broken);
      expect(run).toMatchObject({ status: 1, stderr: '' });
      expect(jsonError(run)).toMatchObject({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining('factorly.yaml'),
      });
    }
  });
});

describe('factorly unknown commands', () => {
  it('suggests the closest command and `factorly help`, exit 2, no prompt', () => {
    const root = tempProject();
    const cal = runCli(['cal', 'greet'], root);
    expect(cal).toMatchObject({ status: 2, stdout: '' });
    expect(cal.stderr).toBe(
      'Error: unknown command "cal"; did you mean "call"?\nSee `factorly help` for every command.\n',
    );
    expect(runCli(['vault', 'lst'], root).stderr).toMatch(
      /^Error: unknown command "vault lst"; did you mean "vault list"\?/,
    );
    const none = runCli(['zzzzzz'], root);
    expect(none).toMatchObject({ status: 2, stderr: expect.stringMatching(/^Error: unknown command "zzzzzz"\n/) });
    expect(jsonError(runCli(['cal', '--json'], root))).toMatchObject({ code: 'USAGE' });
    // Asking for its help is the same mistake.
    for (const help of [
      ['help', 'cal'],
      ['cal', '--help'],
    ])
      expect(runCli(help, root)).toMatchObject({ status: 2, stderr: cal.stderr });
  });
});

describe('factorly vault --json', () => {
  it('prints each operation as one JSON object; list carries names only', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    const env = { env: { FACTORLY_VAULT_PASSWORD: 'correct horse battery staple' } };
    const set = runCli(['vault', 'set', 'API_TOKEN', 's3cr3t-value', '--json'], root, env);
    expect(set.status).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ op: 'set', key: 'API_TOKEN', tier: 'project' });
    const list = runCli(['vault', 'list', '--json'], root, env);
    expect(JSON.parse(list.stdout)).toEqual({ tier: 'project', keys: ['API_TOKEN'] });
    expect(list.stdout).not.toContain('s3cr3t');
    const get = runCli(['vault', 'get', 'API_TOKEN', '--json'], root, env);
    expect(JSON.parse(get.stdout)).toEqual({ key: 'API_TOKEN', tier: 'project', value: 's3cr3t-value' });
    const missing = runCli(['vault', 'get', 'NOPE', '--json'], root, env);
    expect(missing.status).toBe(1);
    expect(jsonError(missing)).toEqual({ code: 'SECRET_NOT_FOUND', message: 'secret "NOPE" not found in the vault' });
    const deleted = runCli(['vault', 'delete', 'API_TOKEN', '--json'], root, env);
    expect(JSON.parse(deleted.stdout)).toEqual({ op: 'delete', key: 'API_TOKEN', tier: 'project' });
    expect(JSON.parse(runCli(['vault', 'list', '--json'], root, env).stdout)).toEqual({ tier: 'project', keys: [] });
  });
});
