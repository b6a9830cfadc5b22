import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { GREET } from './code-kernel.js';

// The seed's examples, with JavaScript bodies, through the built CLI. A returned string is the
// output verbatim, so it has no trailing newline unless the script adds one.
const YAML = `${GREET}  api.zen:
    type: cli
    description: Stands in for factorly.fetch of https://api.github.com/zen as JSON
    command: echo
    args: ['{"zen":"Keep it logically awesome."}']
  github.zen:
    type: code
    description: Fetch the zen koan and tag it with a timestamp
    code: |
      async function run() {
        const res = await factorly.call("api.zen", {});
        if (res.isError()) throw new Error(res.error);
        const { zen } = JSON.parse(res.output);
        return "[" + new Date(0).toISOString() + "] " + zen;
      }
  people.first:
    type: cli
    command: echo
    args: ["Ada"]
  people.last:
    type: cli
    command: echo
    args: ["Lovelace"]
  people.full:
    type: code
    description: Join two sibling tools' results
    code: |
      async function run() {
        const [first, last] = await Promise.all([tools.people.first({}), tools.people.last({})]);
        console.log("joined", first, last);
        return { name: first + " " + last };
      }
`;

describe('code tools from the CLI (seed examples)', () => {
  it('greet --name alice → hello alice', () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    expect(runCli(['call', 'greet', '--name', 'alice'], root)).toMatchObject({
      status: 0,
      stdout: 'hello alice',
      stderr: '',
    });
  });

  it('fetch and transform: calls another tool, parses its JSON, returns a field', () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    expect(runCli(['call', 'github.zen'], root)).toMatchObject({
      status: 0,
      stdout: '[1970-01-01T00:00:00.000Z] Keep it logically awesome.',
    });
  });

  it('cross-tool composition: joins sibling tools, console output on stderr', () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    expect(runCli(['call', 'people.full'], root)).toMatchObject({
      status: 0,
      stdout: '{"name":"Ada Lovelace"}',
      stderr: 'joined Ada Lovelace\n',
    });
  });

  it('factorly.code --code … --params {"who":"world"} → hi world, with its source sha in the logs', () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    const code = 'async function run(p) { return "hi " + p.who }';
    expect(runCli(['call', 'factorly.code', '--code', code, '--params', '{"who":"world"}'], root)).toMatchObject({
      status: 0,
      stdout: 'hi world',
    });
    const [entry] = runCli(['logs', '--json'], root)
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entry).toMatchObject({
      tool: 'factorly.code',
      status: 'success',
      source_sha: createHash('sha256').update(code).digest('hex'),
    });
  });

  it('exits 1 with the message when the script throws and 2 when it is stopped', () => {
    const root = tempProject({ '.factorly/factorly.yaml': YAML });
    expect(
      runCli(['call', 'factorly.code', '--code', 'async function run() { throw new Error("no way") }'], root),
    ).toMatchObject({ status: 1, stdout: '', stderr: 'no way\n' });
    const stopped = runCli(
      ['call', 'factorly.code', '--code', 'async function run() { await new Promise(() => {}) }'],
      root,
    );
    expect(stopped).toMatchObject({
      status: 2,
      stderr: 'the script is waiting for a promise that can never settle (no tool call is pending)\n',
    });
  });
});
