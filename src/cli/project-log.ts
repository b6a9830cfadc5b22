import { existsSync } from 'node:fs';
import type { EventLog } from '../events/log.js';

/**
 * Opens the project's event log for reading, without needing a valid tool config (a broken YAML
 * file must not stop anyone from reading or verifying the evidence). Undefined when nothing was
 * recorded yet. `checkEveryPage` first walks every page of the file (`logs verify`), so damage
 * anywhere in it is reported instead of crashing the process.
 */
export async function openExistingLog(configPath: string | undefined, options: { checkEveryPage?: boolean } = {}): Promise<EventLog | undefined> {
  const { findConfig } = await import('../kernel/config/paths.js');
  const paths = findConfig({ cwd: process.cwd(), explicit: configPath });
  if (!existsSync(paths.logPath)) return undefined;
  if (options.checkEveryPage) (await import('../events/lmdb-file-check.js')).checkLmdbFile(paths.logPath, { deep: true });
  const { LmdbEventLog } = await import('../events/lmdb-log.js');
  return new LmdbEventLog({ path: paths.logPath });
}
