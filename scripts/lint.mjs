// `npm run lint`: ESLint, the layering check and Prettier, run at the same time (each is mostly one
// thread, so together they take about as long as ESLint alone). Each check's output is printed whole,
// in a fixed order, once all have ended; the exit status is non-zero when any of them failed.
import { spawn } from 'node:child_process';

const CHECKS = [
  ['ESLint', 'eslint', ['.']],
  ['layering', 'npm', ['run', '--silent', 'lint:deps']],
  // Prettier's cache is keyed by each file's content and the config: a stale entry cannot hide a change.
  ['Prettier', 'prettier', ['--check', '--cache', '--cache-location', 'node_modules/.cache/prettier/.cache', '.']],
];

function run([name, command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ name, status: 1, output: `${output}${error.message}\n` }));
    child.on('close', (status, signal) => resolve({ name, status: status ?? (signal ? 1 : 0), output }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const { name, status, output } of results) {
  process.stdout.write(`── ${name}: ${status === 0 ? 'passed' : `FAILED (exit ${status})`}\n${output}`);
  if (output && !output.endsWith('\n')) process.stdout.write('\n');
}
process.exitCode = results.some((result) => result.status !== 0) ? 1 : 0;
