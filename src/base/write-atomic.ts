import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `file` with `text` atomically (temp file in the same directory, fsync, rename), so a
 * reader sees the old text or the new, never half of it. A symlinked file (dotfile managers) is
 * written through to its target rather than replaced by a file. The file keeps its mode; a new one
 * gets `newMode`. Returns the path written (the symlink's target).
 */
export function writeAtomically(file: string, text: string, newMode: number): string {
  const existed = existsSync(file);
  const target = existed ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  const mode = existed ? statSync(target).mode & 0o777 : newMode;
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
  return target;
}
