import { appendFileSync } from 'node:fs';

/**
 * lmdb-js ends the process (SIGSEGV, SIGBUS, an assertion's SIGABRT) on some damaged pages that the
 * checks made before opening cannot see without reading the whole file. So a command that reads a
 * log whole (`logs …`) runs in a child process of a guard (`src/cli/log-guard.ts`) that outlives such an end: the
 * child tells its guard each log file it is about to map, before LMDB maps it, and the guard turns a
 * death by signal into one line naming that file and exit code 2.
 */

let reportFile: string | undefined;
const announced: string[] = [];

/**
 * In a guarded child: the file its guard reads the log files from once the child has ended (a file,
 * not an inherited pipe, which the tools a call runs would inherit and could hold open).
 */
export function reportLogFilesTo(file: string): void {
  reportFile = file;
}

/** Called before LMDB maps `path`: synchronously, so the guard knows it even if LMDB ends the process at once. */
export function announceLogFile(path: string): void {
  if (announced.includes(path)) return;
  announced.push(path);
  if (reportFile === undefined) return;
  try {
    appendFileSync(reportFile, `${path}\n`, { mode: 0o600 });
  } catch {
    reportFile = undefined; // nowhere to tell: the guard names no file, the command runs the same
  }
}

/** The log file this process opened last: what an error LMDB raised while reading is about. */
export function lastLogFile(): string | undefined {
  return announced.at(-1);
}
