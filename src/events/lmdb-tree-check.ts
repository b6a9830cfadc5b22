import { readSync } from 'node:fs';

/**
 * A walk over every page an LMDB environment can reach, with plain reads, for `logs verify`: each
 * page must know its own number, be of a kind its parent may point to, keep its nodes inside
 * itself and point only to pages inside the file, each page reached once. LMDB trusts all of this
 * when it maps the file; a damaged page deep in the tree would otherwise crash the process (SIGSEGV,
 * an assertion's SIGABRT) instead of being reported.
 *
 * Layout (liblmdb as bundled by lmdb-js, 64-bit): after the 24-byte page header come `lower / 2`
 * u16 node offsets (relative to the end of the header); a node is lo u16, hi u16, flags u16,
 * key size u16, the key, then its data. In a branch node lo, hi and flags are the child's page
 * number; in a leaf node lo and hi are the data size, and the flags say whether the data is an
 * overflow page number (u64) or a sub-database record (48 bytes, its root page at byte 40).
 */
/** The page header's size and the page kinds both file checks read. */
export const HEADER = 24;
export const P_BRANCH = 0x01;
export const P_LEAF = 0x02;
export const NO_ROOT = 0xffffffffffffffffn;
const NODE = 8;
const P_OVERFLOW = 0x04;
const P_LEAF2 = 0x20;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const DB_ROOT = 40;

export interface TreeBounds {
  pageSize: number;
  lastPage: bigint;
  roots: bigint[];
}

/**
 * Why the tree under `roots` is not sound, naming the first bad page, or undefined. Page numbers are
 * plain numbers here (a file of 2^53 pages does not exist) and one buffer is read into for every
 * page, so the walk costs the reads, not the arithmetic or the garbage.
 */
export function treeProblem(fd: number, bounds: TreeBounds): string | undefined {
  const walk: Walk = {
    fd,
    pageSize: bounds.pageSize,
    lastPage: Number(bounds.lastPage),
    seen: new Set<number>(),
    pending: bounds.roots.filter((root) => root !== NO_ROOT).map((root) => asPage(root)),
    page: Buffer.allocUnsafe(bounds.pageSize),
    header: Buffer.allocUnsafe(HEADER),
  };
  while (walk.pending.length > 0) {
    const pgno = walk.pending.pop()!;
    const problem = reach(pgno, walk) ?? pageProblem(pgno, walk);
    if (problem) return `is damaged: page ${pgno} ${problem}`;
  }
  return undefined;
}

interface Walk {
  fd: number;
  pageSize: number;
  lastPage: number;
  seen: Set<number>;
  pending: number[];
  /** Read into for each page in turn, and for each overflow page's header. */
  page: Buffer;
  header: Buffer;
}

/** A page number as stored (u64): past 2^53 it is no page of any file. */
function asPage(pgno: bigint): number {
  return pgno > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(pgno);
}

function u64(bytes: Buffer, at: number): number {
  return bytes.readUInt32LE(at) + bytes.readUInt32LE(at + 4) * 2 ** 32;
}

function reach(pgno: number, walk: Walk): string | undefined {
  if (pgno < 2 || pgno > walk.lastPage) return `is outside the file's ${walk.lastPage + 1} pages`;
  if (walk.seen.has(pgno)) return 'is reached twice';
  walk.seen.add(pgno);
  return undefined;
}

function pageProblem(pgno: number, walk: Walk): string | undefined {
  const { pageSize, page } = walk;
  const read = readSync(walk.fd, page, 0, pageSize, pgno * pageSize);
  if (read < pageSize || u64(page, 0) !== pgno) return 'is not the page its parent points to';
  const flags = page.readUInt16LE(18);
  const count = page.readUInt16LE(20) >> 1;
  if (flags & P_LEAF2)
    return HEADER + count * page.readUInt16LE(16) <= pageSize ? undefined : 'holds more keys than fit';
  if (!(flags & (P_BRANCH | P_LEAF))) return 'is not a branch or leaf page';
  if (HEADER + 2 * count > pageSize) return 'lists more nodes than fit';
  for (let i = 0; i < count; i += 1) {
    const at = HEADER + page.readUInt16LE(HEADER + 2 * i);
    if (at + NODE > pageSize) return `has node ${i} outside it`;
    const problem = flags & P_BRANCH ? branchNode(page, at, walk) : leafNode(page, at, walk);
    if (problem) return `has a bad node ${i}: ${problem}`;
  }
  return undefined;
}

function branchNode(page: Buffer, at: number, walk: Walk): string | undefined {
  const child = page.readUInt16LE(at) + page.readUInt16LE(at + 2) * 2 ** 16 + page.readUInt16LE(at + 4) * 2 ** 32;
  if (at + NODE + page.readUInt16LE(at + 6) > walk.pageSize) return 'its key runs past the page';
  walk.pending.push(child);
  return undefined;
}

function leafNode(page: Buffer, at: number, walk: Walk): string | undefined {
  const size = page.readUInt16LE(at) + page.readUInt16LE(at + 2) * 2 ** 16;
  const flags = page.readUInt16LE(at + 4);
  const data = at + NODE + page.readUInt16LE(at + 6);
  const stored = flags & F_BIGDATA ? 8 : size;
  if (data + stored > walk.pageSize) return 'its key or data runs past the page';
  if (flags & F_BIGDATA) return overflowProblem(u64(page, data), size, walk);
  if (flags & F_SUBDATA) {
    if (stored < DB_ROOT + 8) return 'its database record is too short';
    const root = page.readBigUInt64LE(data + DB_ROOT);
    if (root !== NO_ROOT) walk.pending.push(asPage(root));
  }
  return undefined;
}

/** A value on overflow pages: the first one says how many follow; all must be inside the file. */
function overflowProblem(pgno: number, size: number, walk: Walk): string | undefined {
  const reached = reach(pgno, walk);
  if (reached) return `its overflow page ${pgno} ${reached}`;
  const { header } = walk;
  const read = readSync(walk.fd, header, 0, HEADER, pgno * walk.pageSize);
  const pages = read < HEADER ? 0 : header.readUInt32LE(20);
  if (read < HEADER || u64(header, 0) !== pgno || !(header.readUInt16LE(18) & P_OVERFLOW))
    return `its overflow page ${pgno} is not one`;
  if (pgno + pages - 1 > walk.lastPage || pages * walk.pageSize < size)
    return `its ${pages} overflow pages from ${pgno} do not hold its ${size} bytes inside the file`;
  return undefined;
}

export function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, length));
  const read = readSync(fd, buffer, 0, buffer.length, position);
  return buffer.subarray(0, read);
}
