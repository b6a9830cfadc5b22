import { resolve } from 'node:path';
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
  const root = open({ path, compression: false, readOnly });
  const key = resolve(path);
  if (!readOnly && !held.has(key)) held.set(key, open({ path, compression: false }));
  return root;
}
