import { existsSync } from 'node:fs';
import type { EventLog } from '../events/log.js';

/**
 * Opens the project's event log for reading, without needing a valid tool config (a broken YAML
 * file must not stop anyone from reading or verifying the evidence). Undefined when nothing was
 * recorded yet.
 */
export async function openExistingLog(configPath: string | undefined): Promise<EventLog | undefined> {
  const { findConfig } = await import('../kernel/config/paths.js');
  const paths = findConfig({ cwd: process.cwd(), explicit: configPath });
  if (!existsSync(paths.logPath)) return undefined;
  const { LmdbEventLog } = await import('../events/lmdb-log.js');
  return new LmdbEventLog({ path: paths.logPath });
}
