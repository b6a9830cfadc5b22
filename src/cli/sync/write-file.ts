import { randomBytes } from 'node:crypto';
import { closeSync, constants, copyFileSync, existsSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';

/** The file's text, or undefined when it does not exist yet. */
export function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** A unified diff of one file, `/dev/null` standing for a file about to be created. */
export function unifiedDiff(shownAs: string, before: string | undefined, after: string): string {
  const patch = createTwoFilesPatch(before === undefined ? '/dev/null' : shownAs, shownAs, before ?? '', after, '', '', { context: 3 });
  // Drop jsdiff's "Index:" and "====" banner: what remains is what `diff -u` and git print.
  return patch.slice(patch.indexOf('---'));
}

/**
 * Replaces `file` with `text` atomically (temp file in the same directory, fsync, rename), after
 * copying the old contents to `<file>.bak-<timestamp>`; returns that backup's path. A symlinked
 * config (dotfile managers) is written through to its target rather than replaced by a file.
 * The file keeps its mode; a new one gets `newMode`.
 */
export function writeWithBackup(file: string, text: string, newMode: number): string | undefined {
  const existed = existsSync(file);
  const target = existed ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  const mode = existed ? statSync(target).mode & 0o777 : newMode;
  const backup = existed ? `${target}.bak-${timestamp()}` : undefined;
  if (backup) copyFileSync(target, backup, constants.COPYFILE_EXCL);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      fchmodSync(fd, mode); // exact, whatever the umask
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return backup;
}

/** 20261130T061300123Z: sortable, and safe in a file name on every OS. */
function timestamp(): string {
  return new Date().toISOString().replace(/[-:.]/g, '');
}
