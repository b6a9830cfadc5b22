import { closeSync, fstatSync, openSync } from 'node:fs';
import { FactorlyError } from '../base/errors.js';
import { announceLogFile } from './lmdb-guard.js';
import { HEADER, NO_ROOT, P_BRANCH, P_LEAF, readAt, treeProblem } from './lmdb-tree-check.js';

/**
 * LMDB maps its data file into memory and trusts what it finds there: a file of random bytes, of
 * zeros, or cut short makes the process die of SIGSEGV or SIGBUS on open, with no message. So the
 * file is checked with plain reads before it is mapped: the meta pages LMDB picks its root from,
 * the page they point to, and that the file is as long as they say. What fails is refused with an
 * error naming the file (exit code 2, "could not read"), never a signal. Only a missing file is
 * left alone (`createLogFile` makes it whole before it has a name); an empty one is refused like
 * any other damage, never taken for a fresh log in place of a history that was lost.
 *
 * Layout (liblmdb as bundled by lmdb-js, 64-bit): a page starts with a 24-byte header (pgno u64,
 * txnid u64, pad u16, flags u16, lower u16, upper u16); a meta page holds, after it, magic u32,
 * version u32, address u64, mapsize u64, two 48-byte database records (free pages, main; the
 * first one's leading u32 is the page size), the last used page u64 and the txnid u64.
 */
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const P_META = 0x08;
const META = { magic: 24, version: 28, pageSize: 48, freeRoot: 88, mainRoot: 136, lastPage: 144, txnid: 152 };

interface Meta {
  offset: number;
  pageSize: number;
  roots: bigint[];
  lastPage: bigint;
  txnid: bigint;
}

/**
 * Throws `LOG_UNREADABLE` naming `path` when the file there is not an LMDB environment LMDB can
 * open safely. `deep` also walks every page the environment reaches (`logs verify`: it costs one
 * read per page, as reading the whole log does).
 */
export function checkLmdbFile(path: string, options: { deep?: boolean } = {}): void {
  announceLogFile(path);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw unreadable(path, `cannot be opened (${(error as Error).message})`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) throw unreadable(path, 'is empty (0 bytes): it holds no LMDB environment');
    const latest = fileProblem(fd, size);
    if (typeof latest === 'string') throw unreadable(path, latest);
    const deep = options.deep ? treeProblem(fd, latest) : undefined;
    if (deep) throw unreadable(path, deep);
  } finally {
    closeSync(fd);
  }
}

/** What is wrong with the file's header, or the meta page LMDB will open. */
function fileProblem(fd: number, size: number): string | Meta {
  const first = readAt(fd, 0, Math.min(size, 4096));
  if (first.length < HEADER + META.txnid + 8 || !isMeta(first))
    return 'is not an LMDB environment (no LMDB header at its start)';
  const pageSize = first.readUInt32LE(META.pageSize);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0)
    return `is damaged: its header gives a page size of ${pageSize}`;
  if (size < 2 * pageSize) return `is cut short: ${size} bytes, less than its two ${pageSize}-byte header pages`;
  const metas = metaCandidates(fd, pageSize, size);
  if (typeof metas === 'string') return metas;
  // LMDB opens the newest meta page: everything it will read first must be inside the file.
  const latest = metas.reduce((a, b) => (b.txnid > a.txnid ? b : a));
  const needed = (latest.lastPage + 1n) * BigInt(pageSize);
  // Measured again after the header was read: a writer in another process only ever grows the file.
  const now = fstatSync(fd).size;
  if (needed > BigInt(now)) return `is cut short: ${now} bytes, but its header says it holds at least ${needed}`;
  for (const root of latest.roots) {
    if (root === NO_ROOT) continue;
    const problem = rootProblem(fd, root, pageSize, latest.lastPage);
    if (problem) return problem;
  }
  return latest;
}

/** The meta pages LMDB may pick: at 0 and one page, and (lmdb-js's overlapping sync) at half a page. */
function metaCandidates(fd: number, pageSize: number, size: number): Meta[] | string {
  const metas: Meta[] = [];
  for (const offset of [0, pageSize / 2, pageSize]) {
    const bytes = readAt(fd, offset, Math.min(pageSize / 2, size - offset));
    if (bytes.length < HEADER + META.txnid + 8) continue;
    const txnid = bytes.readBigUInt64LE(META.txnid);
    if (offset !== 0 && txnid === 0n) continue; // never written: LMDB skips it too
    // The half-page one (lmdb-js) carries no page header or magic; LMDB picks it by txnid alone.
    if (offset !== pageSize / 2 && !isMeta(bytes))
      return `is damaged: the header page at byte ${offset} is not an LMDB meta page`;
    if (bytes.readUInt32LE(META.pageSize) !== pageSize) return `is damaged: its header pages disagree on the page size`;
    metas.push({
      offset,
      pageSize,
      roots: [bytes.readBigUInt64LE(META.freeRoot), bytes.readBigUInt64LE(META.mainRoot)],
      lastPage: bytes.readBigUInt64LE(META.lastPage),
      txnid,
    });
  }
  return metas;
}

/** A root page must be a branch or leaf page that knows its own number: zeroed or random pages do not. */
function rootProblem(fd: number, root: bigint, pageSize: number, lastPage: bigint): string | undefined {
  if (root < 2n || root > lastPage)
    return `is damaged: its header points to page ${root}, outside the file's ${lastPage + 1n} pages`;
  const page = readAt(fd, Number(root) * pageSize, HEADER);
  const flags = page.readUInt16LE(18);
  const lower = page.readUInt16LE(20);
  const upper = page.readUInt16LE(22);
  const kind = flags & (P_BRANCH | P_LEAF);
  if (page.readBigUInt64LE(0) !== root || (kind !== P_BRANCH && kind !== P_LEAF) || lower > upper || upper > pageSize) {
    return `is damaged: page ${root}, a root of its data, is not a valid LMDB page`;
  }
  return undefined;
}

function isMeta(bytes: Buffer): boolean {
  return (
    (bytes.readUInt16LE(18) & P_META) !== 0 &&
    bytes.readUInt32LE(META.magic) === MAGIC &&
    (bytes.readUInt32LE(META.version) & 0xffff) === DATA_VERSION
  );
}

function unreadable(path: string, problem: string): FactorlyError {
  return new FactorlyError(
    'LOG_UNREADABLE',
    `the event log ${path} ${problem}; it was not opened (move it aside to start a new log, or restore it from a backup)`,
    { data: { path } },
  );
}
