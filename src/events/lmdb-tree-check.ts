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

/** Why the tree under `roots` is not sound, naming the first bad page, or undefined. */
export function treeProblem(fd: number, bounds: TreeBounds): string | undefined {
  const seen = new Set<bigint>();
  const pending = bounds.roots.filter((root) => root !== NO_ROOT);
  while (pending.length > 0) {
    const pgno = pending.pop()!;
    const problem = reach(pgno, bounds, seen) ?? pageProblem(fd, pgno, bounds, pending, seen);
    if (problem) return `is damaged: page ${pgno} ${problem}`;
  }
  return undefined;
}

function reach(pgno: bigint, bounds: TreeBounds, seen: Set<bigint>): string | undefined {
  if (pgno < 2n || pgno > bounds.lastPage) return `is outside the file's ${bounds.lastPage + 1n} pages`;
  if (seen.has(pgno)) return 'is reached twice';
  seen.add(pgno);
  return undefined;
}

function pageProblem(
  fd: number,
  pgno: bigint,
  bounds: TreeBounds,
  pending: bigint[],
  seen: Set<bigint>,
): string | undefined {
  const { pageSize } = bounds;
  const page = readAt(fd, Number(pgno) * pageSize, pageSize);
  if (page.length < pageSize || page.readBigUInt64LE(0) !== pgno) return 'is not the page its parent points to';
  const flags = page.readUInt16LE(18);
  const count = page.readUInt16LE(20) >> 1;
  if (flags & P_LEAF2)
    return HEADER + count * page.readUInt16LE(16) <= pageSize ? undefined : 'holds more keys than fit';
  if (!(flags & (P_BRANCH | P_LEAF))) return 'is not a branch or leaf page';
  if (HEADER + 2 * count > pageSize) return 'lists more nodes than fit';
  for (let i = 0; i < count; i += 1) {
    const at = HEADER + page.readUInt16LE(HEADER + 2 * i);
    if (at + NODE > pageSize) return `has node ${i} outside it`;
    const problem = flags & P_BRANCH ? branchNode(page, at, pending) : leafNode(fd, page, at, bounds, pending, seen);
    if (problem) return `has a bad node ${i}: ${problem}`;
  }
  return undefined;
}

function branchNode(page: Buffer, at: number, pending: bigint[]): string | undefined {
  const child =
    BigInt(page.readUInt16LE(at)) |
    (BigInt(page.readUInt16LE(at + 2)) << 16n) |
    (BigInt(page.readUInt16LE(at + 4)) << 32n);
  if (at + NODE + page.readUInt16LE(at + 6) > page.length) return 'its key runs past the page';
  pending.push(child);
  return undefined;
}

function leafNode(
  fd: number,
  page: Buffer,
  at: number,
  bounds: TreeBounds,
  pending: bigint[],
  seen: Set<bigint>,
): string | undefined {
  const size = page.readUInt16LE(at) | (page.readUInt16LE(at + 2) << 16);
  const flags = page.readUInt16LE(at + 4);
  const data = at + NODE + page.readUInt16LE(at + 6);
  const stored = flags & F_BIGDATA ? 8 : size >>> 0;
  if (data + stored > page.length) return 'its key or data runs past the page';
  if (flags & F_BIGDATA) return overflowProblem(fd, page.readBigUInt64LE(data), size >>> 0, bounds, seen);
  if (flags & F_SUBDATA) {
    if (stored < DB_ROOT + 8) return 'its database record is too short';
    const root = page.readBigUInt64LE(data + DB_ROOT);
    if (root !== NO_ROOT) pending.push(root);
  }
  return undefined;
}

/** A value on overflow pages: the first one says how many follow; all must be inside the file. */
function overflowProblem(
  fd: number,
  pgno: bigint,
  size: number,
  bounds: TreeBounds,
  seen: Set<bigint>,
): string | undefined {
  const reached = reach(pgno, bounds, seen);
  if (reached) return `its overflow page ${pgno} ${reached}`;
  const header = readAt(fd, Number(pgno) * bounds.pageSize, HEADER);
  const pages = header.length < HEADER ? 0 : header.readUInt32LE(20);
  if (header.length < HEADER || header.readBigUInt64LE(0) !== pgno || !(header.readUInt16LE(18) & P_OVERFLOW))
    return `its overflow page ${pgno} is not one`;
  if (pgno + BigInt(pages) - 1n > bounds.lastPage || pages * bounds.pageSize < size)
    return `its ${pages} overflow pages from ${pgno} do not hold its ${size} bytes inside the file`;
  return undefined;
}

export function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, length));
  const read = readSync(fd, buffer, 0, buffer.length, position);
  return buffer.subarray(0, read);
}
