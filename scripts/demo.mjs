#!/usr/bin/env node
// The README's first command: a tour of factorly on the embedded LMDB log, in a temporary project.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '..', 'bin', 'run.js');
const project = mkdtempSync(join(tmpdir(), 'factorly-demo-'));
const env = {
  ...process.env,
  XDG_DATA_HOME: join(project, '.xdg-data'),
  XDG_CONFIG_HOME: join(project, '.xdg-config'),
};

function step(title, args) {
  console.log(`\n$ factorly ${args.join(' ')}    # ${title}`);
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: project, env, encoding: 'utf8' });
  process.stdout.write(run.stdout);
  process.stdout.write(run.stderr.replace(/^/gm, '  stderr| ').replace(/  stderr\| $/, ''));
  console.log(`  (exit ${run.status})`);
  return run;
}

console.log(`factorly demo in ${project}`);
try {
  step('create .factorly/factorly.yaml with an example tool', ['init']);
  writeFileSync(
    join(project, '.factorly', 'tools', 'files.yaml'),
    'count.words:\n  type: cli\n  description: Count the words of a text (piped to wc).\n  command: wc\n  args: ["-w"]\n  stdin: "{{text}}"\n' +
      '  parameters:\n    - {name: text, required: true, max_length: 10000}\n',
  );
  step('list the tools', ['tools']);
  step('call a tool through the proxy', ['call', 'greet', '--name', 'Ada']);
  step('typed params, stdin template, JSON result', ['call', 'count.words', '--text', 'the quick brown fox', '--json']);
  step('a typo in the tool name is blocked, with a suggestion', ['call', 'gret']);
  step('a missing required parameter is blocked before anything runs', ['call', 'count.words']);
  step('the audit view, rebuilt from the event log', ['logs']);
  step('the same as JSON Lines', ['logs', '--json', '-n', '1']);
  const verify = step('walk the hash chain', ['logs', 'verify']);
  process.exitCode = verify.status ?? 1;
} finally {
  rmSync(project, { recursive: true, force: true });
}
