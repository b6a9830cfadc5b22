import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportLogFilesTo } from '../events/lmdb-guard.js';

/**
 * The guard `bin/run.js` puts around the commands that read a log (`logs …`, `call`): the command runs
 * in a child process with the same argv, stdio and environment, and writes the log files it maps to
 * a file the guard names (`announceLogFile`). A child that LMDB ends with a signal on a damaged page
 * is reported as the damaged file it was reading, exit code 2; any other end (an exit code, Ctrl-C,
 * a kill) is passed on as it was. It costs one more Node start, not a read.
 *
 * `call` is guarded too: besides the pages on the way to the log's head and its own keys, it folds
 * what its rules and plugins keep over the log (pins, rate-limit windows) from their snapshots and
 * the events after them, so it can meet a damaged page anywhere; the guard also keeps LMDB's own
 * `Write error` line (a full disk) out of what it prints.
 */

const GUARD_ENV = 'FACTORLY_LOG_GUARD';
const GUARDED = new Set(['logs', 'call']);
/** How a process ends when native code fails: what LMDB does on a page it cannot make sense of. */
const CRASHES = new Set<NodeJS.Signals>(['SIGSEGV', 'SIGBUS', 'SIGABRT', 'SIGILL', 'SIGFPE', 'SIGTRAP']);
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

/**
 * True when this process was the guard and the command has ended (`process.exitCode` set); false
 * when the command should run here: a guarded child (its report file taken out of the environment,
 * so the tools it runs do not inherit it) or a command that opens no log.
 */
export async function runGuarded(argv: readonly string[], bin: string): Promise<boolean> {
  const report = process.env[GUARD_ENV];
  if (report !== undefined) {
    delete process.env[GUARD_ENV];
    reportLogFilesTo(report);
    return false;
  }
  if (!GUARDED.has(argv[0]?.split(':')[0] ?? '')) return false;
  const file = join(tmpdir(), `factorly-guard-${process.pid}-${randomBytes(8).toString('hex')}`);
  try {
    const [code, signal] = await runChild(argv, bin, file);
    const opened = readAnnounced(file).at(-1);
    if (signal === null) process.exitCode = code ?? 1;
    else if (CRASHES.has(signal) && opened !== undefined) process.exitCode = await reportCrash(opened, signal, argv);
    else process.kill(process.pid, signal); // ended as the child did (Ctrl-C, a kill): the caller sees the same
  } finally {
    rmSync(file, { force: true });
  }
  return true;
}

/** Runs the command in a child, passing on the signals a caller sends this process. */
async function runChild(
  argv: readonly string[],
  bin: string,
  report: string,
): Promise<[number | null, NodeJS.Signals | null]> {
  const child = spawn(process.execPath, [...process.execArgv, bin, ...argv], {
    stdio: ['inherit', 'inherit', 'pipe'],
    env: { ...process.env, [GUARD_ENV]: report },
  });
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  const noise = new LmdbNoise();
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(noise.filter(chunk.toString('utf8'))));
  try {
    return await exited(child, STDERR_DRAIN_MS);
  } finally {
    for (const signal of FORWARDED) process.off(signal, forward);
  }
}

/**
 * The child's exit code and signal, once it has exited and what it wrote to stderr has all been
 * read; a process it started that still holds the pipe is waited for `graceMs` at most. Call it as
 * the child is spawned: the pipe often ends before the `exit` event comes, and an end not listened
 * for by then would cost every command the whole grace.
 */
export function exited(child: ChildProcess, graceMs: number): Promise<[number | null, NodeJS.Signals | null]> {
  const stderrEnded = new Promise<void>((resolve) => child.stderr!.once('end', resolve));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const done = (): void => resolve([code, signal]);
      const timer = setTimeout(() => {
        child.stderr!.destroy();
        done();
      }, graceMs);
      void stderrEnded.then(() => {
        clearTimeout(timer);
        done();
      });
    });
  });
}

/** How long the guard waits, once the child has ended, for the rest of what it wrote to stderr. */
const STDERR_DRAIN_MS = 200;

/**
 * LMDB's C library prints its own line for a failed write (`Write error: No space left on device
 * position …, size …`, its newline written apart) before lmdb-js raises the error factorly reports
 * in one line naming the file: that line is left out of what the command's stderr shows.
 */
export class LmdbNoise {
  private dropNewline = false;

  filter(text: string): string {
    let rest = this.dropNewline && text.startsWith('\n') ? text.slice(1) : text;
    this.dropNewline = false;
    rest = rest.replace(/Write error: [^\n]*? position \d+, size \d+(\n|$)/g, (_line, newline: string) => {
      if (newline === '') this.dropNewline = true;
      return '';
    });
    return rest;
  }
}

function readAnnounced(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return []; // the child opened no log
  }
}

async function reportCrash(file: string, signal: NodeJS.Signals, argv: readonly string[]): Promise<number> {
  const { FactorlyError } = await import('../base/errors.js');
  const { reportFailure } = await import('./person-output.js');
  const end = argv.indexOf('--');
  const json = (end < 0 ? argv : argv.slice(0, end)).includes('--json');
  const error = new FactorlyError(
    'LOG_UNREADABLE',
    `the event log ${file} is damaged: LMDB ended the process reading it (${signal}); ` +
      'move it aside to start a new log, or restore it from a backup',
    { data: { path: file } },
  );
  return reportFailure(error, { json });
}
