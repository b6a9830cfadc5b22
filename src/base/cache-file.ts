import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The name of one cache file of a kind: `<kind>-<digest of key>.<ext>`, one per key, so two
 * installations of factorly (or two plugin sets) used in turn do not evict each other's file.
 */
export function cacheFileName(kind: string, key: string, ext: string): string {
  return `${kind}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.${ext}`;
}

/**
 * Writes a cache file whole: under a temporary name, then renamed, so a reader sees the old file or
 * the new one. A failure (a read-only home) is ignored: it only means the next start does the work
 * again. When `keep` is given, only the newest `keep` files of the same kind (`<kind>-*.<ext>`) stay.
 */
export function writeCacheFile(dir: string, name: string, data: string | Uint8Array, keep?: number): void {
  try {
    mkdirSync(dir, { recursive: true });
    const temp = join(dir, `${name}.${process.pid}.tmp`);
    writeFileSync(temp, data);
    renameSync(temp, join(dir, name));
    if (keep !== undefined) pruneKind(dir, name, keep);
  } catch {
    // Only a cache.
  }
}

/** Removes the oldest files of `name`'s kind beyond the newest `keep`. */
function pruneKind(dir: string, name: string, keep: number): void {
  const kind = name.slice(0, name.lastIndexOf('-') + 1);
  const ext = name.slice(name.lastIndexOf('.'));
  const files = readdirSync(dir)
    .filter((file) => file.startsWith(kind) && file.endsWith(ext))
    .map((file) => ({ file, mtime: statSync(join(dir, file)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { file } of files.slice(keep)) rmSync(join(dir, file), { force: true });
}
