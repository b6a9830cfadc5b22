import { constants, copyFileSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { writeAtomically } from '../../base/write-atomic.js';

/** The file's text, or undefined when it does not exist yet. */
export function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/**
 * Replaces `file` with `text` atomically (see `writeAtomically`), after copying the old contents to
 * `<file>.bak-<timestamp>`; returns that backup's path. The file keeps its mode; a new one gets `newMode`.
 */
export function writeWithBackup(file: string, text: string, newMode: number): string | undefined {
  const existed = existsSync(file);
  const backup = existed ? `${realpathSync(file)}.bak-${timestamp()}` : undefined;
  if (backup) copyFileSync(realpathSync(file), backup, constants.COPYFILE_EXCL);
  writeAtomically(file, text, newMode);
  return backup;
}

/** 20261130T061300123Z: sortable, and safe in a file name on every OS. */
function timestamp(): string {
  return new Date().toISOString().replace(/[-:.]/g, '');
}
