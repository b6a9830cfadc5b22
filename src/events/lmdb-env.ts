import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { open, type RootDatabase } from 'lmdb';

/**
 * One writable environment per log file stays open for the life of the process. lmdb-js shares an
 * environment between every open of one file in a process and really closes it when the last one
 * closes; opening the file again afterwards, while another process appends, can break that writer's
 * transactions (measured with lmdb 3.5.6: appends it was told were durable went missing, or it
 * failed with "mdb_page_touch error"). With the first writable environment held, later opens and
 * closes in this process only count users. (Only writable ones: lmdb-js hands every later open the
 * environment as first opened, so a held read-only one would make the log unwritable here.)
 */
const held = new Map<string, RootDatabase>();

export function openLogRoot(path: string, readOnly: boolean): RootDatabase {
  if (!readOnly) createLogFile(path);
  const root = open({ path, compression: false, readOnly });
  const key = resolve(path);
  if (!readOnly && !held.has(key)) held.set(key, open({ path, compression: false }));
  return root;
}

/**
 * A new log gets its name only once LMDB has written its header: it is made under a name of its
 * own, synced, and linked into place (which fails if another process got there first, whose log is
 * then used). So a file at the log's path is never one that is still being made, and an empty or
 * short one there is damage, refused by `checkLmdbFile`, never taken for a fresh log.
 */
function createLogFile(path: string): void {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  const making = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.new`;
  const root = open({ path: making, compression: false });
  try {
    const fd = openSync(making, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(making, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    // The names go now; the environment made under them (nothing else opens it) closes in its own time.
    rmSync(making, { force: true });
    rmSync(`${making}-lock`, { force: true });
    void root.close().catch(() => undefined);
  }
}
