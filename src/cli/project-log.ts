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
 * an auditor) is opened read-only.
 */
export async function openExistingLog(configPath: string | undefined): Promise<EventLog | undefined> {
  const paths = await projectLogPaths(configPath);
  if (!existsSync(paths.logPath)) return undefined;
  return openLogAt(paths.logPath);
}

export async function openLogAt(path: string): Promise<EventLog> {
  const { LmdbEventLog } = await import('../events/lmdb-log.js');
  try {
    return new LmdbEventLog({ path });
  } catch (error) {
    if (!cannotWrite(error)) throw readableLogError(path, error);
  }
  try {
    return new LmdbEventLog({ path, readOnly: true });
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
