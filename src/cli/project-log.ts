import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { EventLog } from '../events/log.js';
import { FactorlyError, messageOf } from '../kernel/base/errors.js';
import type { ProjectPaths } from '../kernel/config/paths.js';

/** The project's paths, found without loading (or validating) its tool config. */
export async function projectLogPaths(configPath: string | undefined): Promise<ProjectPaths> {
  const { findConfig } = await import('../kernel/config/paths.js');
  return findConfig({ cwd: process.cwd(), explicit: configPath });
}

/**
 * Opens the project's event log for reading, without needing a valid tool config (a broken YAML
 * file must not stop anyone from reading or verifying the evidence). Undefined when nothing was
 * recorded yet. A log this process may not write (permissions, a read-only mount, a copy handed to
 * an auditor) is opened read-only; one it may write first gets the calls of writers that have
 * ended marked interrupted, so what is shown is what is known.
 */
export async function openExistingLog(configPath: string | undefined): Promise<EventLog | undefined> {
  const paths = await projectLogPaths(configPath);
  if (!existsSync(paths.logPath)) return undefined;
  const { log, writable } = await openLogFileAt(paths.logPath);
  if (writable) {
    const { recoverInterrupted } = await import('../events/recovery.js');
    // A log that cannot take the marks now (a full disk) is still shown as it is.
    await recoverInterrupted(log).catch(() => undefined);
  }
  return log;
}

export async function openLogAt(path: string): Promise<EventLog> {
  return (await openLogFileAt(path)).log;
}

/** Opens a log file, read-only when it cannot be written here. */
async function openLogFileAt(path: string): Promise<{ log: EventLog; writable: boolean }> {
  const { LmdbEventLog } = await import('../events/lmdb-log.js');
  try {
    return { log: new LmdbEventLog({ path }), writable: true };
  } catch (error) {
    if (!cannotWrite(error)) throw readableLogError(path, error);
  }
  try {
    return { log: new LmdbEventLog({ path, readOnly: true }), writable: false };
  } catch (error) {
    throw readableLogError(path, error);
  }
}

/** LMDB reports errno numbers; Node, codes. Either way: the file is there but not writable here. */
function cannotWrite(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 13 || code === 30 || code === 1 || code === 'EACCES' || code === 'EROFS' || code === 'EPERM';
}

/** One line naming the log file and why it cannot be read (exit 2), instead of a stack trace. */
export function readableLogError(path: string, error: unknown): FactorlyError {
  if (FactorlyError.isInstance(error)) return error;
  const shown = relative(process.cwd(), path) || path;
  return new FactorlyError('LOG_UNREADABLE', `cannot read the event log ${shown}: ${messageOf(error)}`, { cause: error });
}
