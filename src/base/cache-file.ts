import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a cache file whole: under a temporary name, then renamed, so a reader sees the old file or
 * the new one. A failure (a read-only home) is ignored: it only means the next start does the work
 * again.
 */
function writeCacheFile(dir: string, name: string, data: string | Uint8Array): void {
  try {
    mkdirSync(dir, { recursive: true });
    const temp = join(dir, `${name}.${process.pid}.tmp`);
    writeFileSync(temp, data);
    renameSync(temp, join(dir, name));
  } catch {
    // Only a cache.
  }
}

/**
 * One kind of start cache kept per key (an installation's root, a plugin set, a project): a file
 * `<kind>-<digest of key>.<ext>` each, so two keys used in turn do not evict each other's file; of
 * a kind, the newest `keep` files stay, and the files earlier versions kept under other names
 * (`legacy`, by default `<kind>.json`) go.
 */
export class CacheKind {
  private readonly ext: string;
  private readonly mine: RegExp;
  private readonly legacy: RegExp;

  constructor(
    private readonly kind: string,
    private readonly keep: number,
    options: { ext?: string; legacy?: RegExp } = {},
  ) {
    this.ext = options.ext ?? 'json';
    this.mine = new RegExp(`^${kind}-[0-9a-f]{16}\\.${this.ext}$`);
    this.legacy = options.legacy ?? new RegExp(`^${kind}\\.json$`);
  }

  /** The file's text for `key`, or undefined when there is none (or it cannot be read). */
  read(dir: string, key: string): string | undefined {
    return this.readBytes(dir, key)?.toString('utf8');
  }

  readBytes(dir: string, key: string): Buffer | undefined {
    try {
      return readFileSync(join(dir, this.fileOf(key)));
    } catch {
      return undefined;
    }
  }

  write(dir: string, key: string, data: string | Uint8Array): void {
    writeCacheFile(dir, this.fileOf(key), data);
    try {
      this.prune(dir);
    } catch {
      // Only a cache: the files are pruned on a later write.
    }
  }

  private fileOf(key: string): string {
    return `${this.kind}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.${this.ext}`;
  }

  /** Removes the oldest files of this kind beyond the newest `keep`, and the ones of earlier versions. */
  private prune(dir: string): void {
    const names = readdirSync(dir);
    for (const file of names.filter((name) => this.legacy.test(name))) rmSync(join(dir, file), { force: true });
    const files = names
      .filter((file) => this.mine.test(file))
      .map((file) => ({ file, mtime: statSync(join(dir, file)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const { file } of files.slice(this.keep)) rmSync(join(dir, file), { force: true });
  }
}
