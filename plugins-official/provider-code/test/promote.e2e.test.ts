import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../../test/helpers/project.js';

const sha = (code: string) => createHash('sha256').update(code).digest('hex');

describe('tools promote with the code provider', () => {
  it('turns a factorly.code run into a named code tool that runs with the inferred defaults', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    const code = 'async function run(p) {\n  return p.greeting + " " + p.who + " x" + p.times;\n}';
    expect(
      runCli(['call', 'factorly.code', '--code', code, '--params', '{"greeting":"hi","who":"world","times":2}'], root),
    ).toMatchObject({ status: 0, stdout: 'hi world x2' });
    const promoted = runCli(
      ['tools', 'promote', '--from-sha', sha(code).slice(0, 8), '--name', 'greet.promoted', '--no-confirm'],
      root,
    );
    expect(promoted.status).toBe(0);
    expect(readFileSync(join(root, '.factorly', 'greet.promoted.yaml'), 'utf8')).toContain('async function run(p) {');
    expect(runCli(['call', 'greet.promoted'], root)).toMatchObject({ status: 0, stdout: 'hi world x2' });
    expect(runCli(['call', 'greet.promoted', '--who', 'Ada', '--times', '3'], root)).toMatchObject({
      status: 0,
      stdout: 'hi Ada x3',
    });
  });

  it('with --to-file writes the script beside the YAML (code_file), whose edits the next call runs', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    const code = 'async function run(p) {\n  return "v1 " + p.who;\n}';
    expect(runCli(['call', 'factorly.code', '--code', code, '--params', '{"who":"Ada"}'], root).status).toBe(0);
    const args = [
      'tools',
      'promote',
      '--from-sha',
      sha(code).slice(0, 8),
      '--name',
      'hello',
      '--no-confirm',
      '--to-file',
      '--json',
    ];
    expect(JSON.parse(runCli(args, root).stdout)).toMatchObject({
      file: '.factorly/hello.yaml',
      scriptFile: '.factorly/hello.js',
    });
    expect(readFileSync(join(root, '.factorly', 'hello.yaml'), 'utf8')).toContain('\n  code_file: hello.js\n');
    expect(readFileSync(join(root, '.factorly', 'hello.js'), 'utf8')).toBe(code);
    expect(runCli(['call', 'hello', '--who', 'Bo'], root)).toMatchObject({ status: 0, stdout: 'v1 Bo' });
    // The next process runs the file as it is now, past the config the last one cached.
    writeFileSync(join(root, '.factorly', 'hello.js'), code.replace('v1', 'v2'));
    expect(runCli(['call', 'hello', '--who', 'Bo'], root)).toMatchObject({ status: 0, stdout: 'v2 Bo' });
  });

  it('refuses to write a script that does not compile', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    const code = 'async function run(p) { return p. }';
    expect(runCli(['call', 'factorly.code', '--code', code], root)).toMatchObject({
      status: 1,
      stderr: 'script failed to compile: Unexpected token (line 1, column 35)\n',
    });
    const refused = runCli(['tools', 'promote', '--from-sha', sha(code).slice(0, 6), '--name', 'broken'], root);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      "script doesn't compile, refusing to write a broken tool: Unexpected token (line 1, column 35)",
    );
    expect(existsSync(join(root, '.factorly', 'broken.yaml'))).toBe(false);
  });
});
