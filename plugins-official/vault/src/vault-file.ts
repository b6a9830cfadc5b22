import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_KDF, deriveMasterKey, freshNonce, open, seal, subKey, weakerThan, type KdfParams } from './crypto.js';
import { decodeVault, encodeVault, SALT_BYTES, type ParsedVault, type VaultHeader } from './format.js';
import { acquireFileLock, type FileLock } from '@factorly/process-kit/file-lock';
import { FactorlyError } from '@factorly/error-kit';

/** One sealed entry: its own HKDF salt and GCM nonce, bound to its name through the AAD. */
interface SealedEntry {
  s: string;
  n: string;
  c: string;
}

type Entries = Record<string, SealedEntry>;

interface Keys {
  kdf: KdfParams;
  salt: Buffer;
  master: Buffer;
}

const EMPTY = Buffer.alloc(0);
const ENTRY_INFO = 'factorly vault entry v1';
const INDEX_INFO = 'factorly vault index v1';
const VERIFIER_INFO = 'factorly vault verifier v1';

/**
 * An unlocked vault file. Reads use the state loaded at unlock; every write takes a cross-process
 * lock, re-reads the file (another process may have written since), applies the change, and
 * replaces the file atomically (temp file, fsync, rename) with mode 0600.
 */
export class VaultFile {
  private constructor(
    readonly path: string,
    private readonly shown: string,
    private readonly password: Buffer,
    private keys: Keys | undefined,
    private entries: Entries,
    /** Identity of the file as last read, so `refresh` knows when to re-read. */
    private stamp: string,
    /** The KDF cost writes bring the file up to. */
    private readonly target: KdfParams,
  ) {}

  /**
   * Opens `path` with `password`; a missing file is an empty vault, created on the first write.
   * A file derived with less than `target` cost is re-keyed at `target` on its next write.
   */
  static async unlock(
    path: string,
    shown: string,
    password: Buffer,
    target: KdfParams = DEFAULT_KDF,
  ): Promise<VaultFile> {
    const stamp = stampOf(path);
    const bytes = readIfExists(path);
    if (!bytes) {
      const salt = randomBytes(SALT_BYTES);
      return new VaultFile(
        path,
        shown,
        password,
        { kdf: target, salt, master: await deriveMasterKey(password, salt, target) },
        nullProto({}),
        stamp,
        target,
      );
    }
    const parsed = decodeVault(bytes, shown);
    const keys = await keysFor(parsed, password, shown);
    return new VaultFile(path, shown, password, keys, readIndex(parsed, keys.master, shown), stamp, target);
  }

  names(): string[] {
    return Object.keys(this.entries).sort();
  }

  get(name: string): string | undefined {
    const entry = Object.hasOwn(this.entries, name) ? this.entries[name] : undefined;
    if (!entry) return undefined;
    const key = subKey(this.keys!.master, Buffer.from(entry.s, 'base64'), ENTRY_INFO);
    const plain = open(
      key,
      Buffer.from(entry.n, 'base64'),
      Buffer.from(entry.c, 'base64'),
      Buffer.from(`entry:${name}`),
    );
    if (!plain)
      throw new FactorlyError(
        'VAULT_CORRUPT',
        `${this.shown} is corrupt: entry ${JSON.stringify(name)} does not decrypt; restore the file from a backup`,
      );
    return plain.toString('utf8');
  }

  async set(name: string, value: string): Promise<void> {
    await this.update((entries, master) => {
      entries[name] = sealEntry(master, name, value);
    });
  }

  /** True when the key existed. */
  async delete(name: string): Promise<boolean> {
    let existed = false;
    await this.update((entries) => {
      existed = Object.hasOwn(entries, name);
      delete entries[name];
    });
    return existed;
  }

  /** Re-reads the file when another process replaced it since this one last read it. */
  async refresh(): Promise<void> {
    const stamp = stampOf(this.path);
    if (stamp !== this.stamp) await this.reload();
  }

  private async update(change: (entries: Entries, master: Buffer) => void): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const lock = await acquireLock(this.path, this.shown);
    try {
      await this.reload();
      if (weakerThan(this.keys!.kdf, this.target)) await this.rekey();
      const entries = nullProto(this.entries);
      change(entries, this.keys!.master);
      const bytes = this.encode(entries);
      if (lock.lost())
        throw new FactorlyError(
          'VAULT_BUSY',
          `${this.shown}: lost the write lock while writing (the process stalled); nothing was written, try again`,
        );
      writeAtomically(this.path, bytes);
      this.entries = entries;
      this.stamp = stampOf(this.path);
    } finally {
      await lock.release();
    }
  }

  /** Picks up what other processes wrote since this one unlocked. */
  private async reload(): Promise<void> {
    this.stamp = stampOf(this.path);
    const bytes = readIfExists(this.path);
    if (!bytes) return;
    const parsed = decodeVault(bytes, this.shown);
    const sameKeys =
      this.keys && parsed.header.salt.equals(this.keys.salt) && sameKdf(parsed.header.kdf, this.keys.kdf);
    if (!sameKeys) this.keys = await keysFor(parsed, this.password, this.shown);
    this.entries = readIndex(parsed, this.keys!.master, this.shown);
  }

  /** Raises an old file's KDF cost to the target: new salt, new master key, every entry resealed. */
  private async rekey(): Promise<void> {
    const values = Object.fromEntries(this.names().map((name) => [name, this.get(name)!]));
    const salt = randomBytes(SALT_BYTES);
    this.keys = { kdf: this.target, salt, master: await deriveMasterKey(this.password, salt, this.target) };
    this.entries = nullProto(
      Object.fromEntries(
        Object.entries(values).map(([name, value]) => [name, sealEntry(this.keys!.master, name, value)]),
      ),
    );
  }

  private encode(entries: Entries): Buffer {
    const { kdf, salt, master } = this.keys!;
    const header: VaultHeader = { kdf, salt, verifier: subKey(master, EMPTY, VERIFIER_INFO), nonce: freshNonce() };
    const index = Buffer.from(JSON.stringify({ entries }));
    return encodeVault(header, (aad) => seal(subKey(master, EMPTY, INDEX_INFO), header.nonce, index, aad));
  }
}

async function keysFor(parsed: ParsedVault, password: Buffer, shown: string): Promise<Keys> {
  const { kdf, salt, verifier } = parsed.header;
  const master = await deriveMasterKey(password, salt, kdf);
  if (!timingSafeEqual(subKey(master, EMPTY, VERIFIER_INFO), verifier)) {
    throw new FactorlyError('VAULT_WRONG_PASSWORD', `wrong password for ${shown}`);
  }
  return { kdf, salt, master };
}

function readIndex(parsed: ParsedVault, master: Buffer, shown: string): Entries {
  const plain = open(subKey(master, EMPTY, INDEX_INFO), parsed.header.nonce, parsed.sealedIndex, parsed.aad);
  if (!plain)
    throw new FactorlyError(
      'VAULT_CORRUPT',
      `${shown} failed authentication (it was modified); restore it from a backup`,
    );
  const index = JSON.parse(plain.toString('utf8')) as { entries?: Entries };
  return nullProto(index.entries ?? {});
}

function sealEntry(master: Buffer, name: string, value: string): SealedEntry {
  const salt = randomBytes(SALT_BYTES);
  const nonce = freshNonce();
  const sealed = seal(
    subKey(master, salt, ENTRY_INFO),
    nonce,
    Buffer.from(value, 'utf8'),
    Buffer.from(`entry:${name}`),
  );
  return { s: salt.toString('base64'), n: nonce.toString('base64'), c: sealed.toString('base64') };
}

/** Entries keyed by user-chosen names: no prototype, so a key named "__proto__" is just a key. */
function nullProto(entries: Entries): Entries {
  return Object.assign(Object.create(null) as Entries, entries);
}

function sameKdf(a: KdfParams, b: KdfParams): boolean {
  return a.iterations === b.iterations && a.memoryKiB === b.memoryKiB && a.parallelism === b.parallelism;
}

/** Identity of the file on disk: an atomic replace always changes the inode. */
function stampOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function readIfExists(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writers wait for each other (up to ~20 s); a lock left by a crashed process goes stale after 10 s. */
async function acquireLock(path: string, shown: string): Promise<FileLock> {
  try {
    return await acquireFileLock(path, { staleMs: 10_000, waitMs: 20_000 });
  } catch (error) {
    throw new FactorlyError(
      'VAULT_BUSY',
      `${shown} is locked by another factorly process (${(error as Error).message}); try again`,
      { cause: error },
    );
  }
}

function writeAtomically(path: string, bytes: Buffer): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  syncDirectory(dirname(path));
}

/** Makes the rename itself durable. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
