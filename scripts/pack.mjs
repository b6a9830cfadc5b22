#!/usr/bin/env node
// `npm run pack [-- <destination dir>]`: the tarball a user installs factorly from
// (`npm install -g ./factorly-<version>.tgz`), every dependency bundled so the install needs no
// registry. Bundling is set for the pack only: with `bundleDependencies` in package.json,
// `npm ci` fails on the bundled dependencies of npm itself (which oclif's plugin command brings).
// Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(repo, 'package.json');
const destination = resolve(process.argv[2] ?? repo);
const original = readFileSync(manifest, 'utf8');
writeFileSync(manifest, `${JSON.stringify({ ...JSON.parse(original), bundleDependencies: true }, null, 2)}\n`);
try {
  const printed = execFileSync(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['pack', '--pack-destination', destination],
    { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
  );
  process.stdout.write(`${join(destination, printed.trim().split('\n').at(-1))}\n`);
} finally {
  writeFileSync(manifest, original);
}
