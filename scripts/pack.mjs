#!/usr/bin/env node
// `npm run pack [-- <destination dir>]`: the tarball a user installs factorly from
// (`npm install -g ./factorly-<version>.tgz`), every dependency bundled so the install needs no
// registry. Bundling is set for the pack only: with `bundleDependencies` in package.json,
// `npm ci` fails on the bundled dependencies of npm itself (which oclif's plugin command brings).
// Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(repo, 'package.json');
const destination = resolve(process.argv[2] ?? repo);
mkdirSync(destination, { recursive: true });

// Two packs of one checkout at once (two test files) must take turns: the second would read the
// first's edited package.json as the original and put it back, leaving bundleDependencies behind.
const release = await takeLock(
  join(tmpdir(), `factorly-pack-${createHash('sha256').update(repo).digest('hex').slice(0, 16)}.lock`),
);
try {
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
} finally {
  release();
}

/** Creates `path` holding this pid, waiting while a live process holds it; a dead holder's file is taken over. */
async function takeLock(path) {
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (!holderAlive(path)) rmSync(path, { force: true });
    else await sleep(200);
  }
}

function holderAlive(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return true; // gone already: try to take it again
  }
  // Created, its pid not written yet; a file left empty for seconds is a holder that died there.
  if (text === '') return Date.now() - statSync(path, { throwIfNoEntry: false })?.mtimeMs < 5000;
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
