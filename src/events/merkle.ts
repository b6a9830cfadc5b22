import { hash } from 'node:crypto';

/**
 * The Merkle tree hash of RFC 9162 §2.1 over the chain: leaf i is the 32-byte chain hash of the
 * event with seq i + 1. Leaves and interior nodes are hashed with distinct prefixes (0x00, 0x01) so
 * a leaf can never pass for a node. Verification here follows the proof *definitions* (§2.1.3.1,
 * §2.1.4.1) backwards: it rebuilds the roots a proof implies and compares them.
 */

export const HASH_BYTES = 32;

/** MTH({}) = SHA-256 of the empty string. */
export const EMPTY_ROOT: Buffer = hash('sha256', Buffer.alloc(0), 'buffer');

// One buffer for every hash input: hashing is synchronous, so it is never shared mid-use.
const input = Buffer.alloc(1 + 2 * HASH_BYTES);

export function leafHash(data: Uint8Array): Buffer {
  if (data.length !== HASH_BYTES) return hash('sha256', Buffer.concat([Buffer.from([0]), data]), 'buffer');
  input[0] = 0;
  input.set(data, 1);
  return hash('sha256', input.subarray(0, 1 + HASH_BYTES), 'buffer');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  input[0] = 1;
  input.set(left, 1);
  input.set(right, 1 + HASH_BYTES);
  return hash('sha256', input, 'buffer');
}

/** The leaf hash of a chain hash given as hex (written straight into the hash input). */
export function chainLeaf(chainHashHex: string): Buffer {
  if (chainHashHex.length !== 2 * HASH_BYTES) return leafHash(Buffer.from(chainHashHex, 'hex'));
  input[0] = 0;
  if (input.write(chainHashHex, 1, 'hex') !== HASH_BYTES) return leafHash(Buffer.from(chainHashHex, 'hex'));
  return hash('sha256', input.subarray(0, 1 + HASH_BYTES), 'buffer');
}

/** k of RFC 9162 §2.1.1: the largest power of two smaller than n (n > 1). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** A complete subtree that became known: `2 ** level` leaves starting at leaf `index << level`. */
export interface TreeNode {
  level: number;
  index: number;
  hash: Buffer;
}

/**
 * The right edge of a tree being built leaf by leaf: one hash per set bit of its size (a compact
 * range from 0). Appending a leaf merges the equal-sized subtrees it completes, and reports each
 * new complete node so a store can keep them.
 */
export class CompactRange {
  constructor(
    public size = 0,
    /** Hashes of the complete subtrees, largest (leftmost) first. */
    readonly peaks: Buffer[] = [],
  ) {}

  push(leaf: Buffer, completed?: (node: TreeNode) => void): void {
    this.pushSubtree(leaf, 0, completed);
  }

  /** Appends a complete subtree of `2 ** level` leaves (the size must be a multiple of it). */
  pushSubtree(hash: Buffer, level: number, completed?: (node: TreeNode) => void): void {
    const width = 2 ** level;
    if (this.size % width !== 0) throw new RangeError(`a subtree of ${width} leaves cannot follow ${this.size} leaves`);
    let node = hash;
    let at = level;
    for (let index = this.size / width; index % 2 === 1; index = Math.floor(index / 2)) {
      node = nodeHash(this.peaks.pop()!, node);
      at += 1;
      completed?.({ level: at, index: Math.floor(index / 2), hash: node });
    }
    this.peaks.push(node);
    this.size += width;
  }

  /** Appends another range that starts where this one ends (its peaks, largest first). */
  append(other: CompactRange): void {
    const levels = peakLevels(other.size);
    other.peaks.forEach((peak, i) => this.pushSubtree(peak, levels[i]!));
  }

  /** MTH of the leaves pushed so far: the peaks folded from the right. */
  root(): Buffer {
    if (this.peaks.length === 0) return EMPTY_ROOT;
    let root = this.peaks.at(-1)!;
    for (let i = this.peaks.length - 2; i >= 0; i -= 1) root = nodeHash(this.peaks[i]!, root);
    return root;
  }

  clone(): CompactRange {
    return new CompactRange(this.size, [...this.peaks]);
  }
}

/** The levels of the peaks of a tree of `size` leaves, largest first (the set bits of size). */
export function peakLevels(size: number): number[] {
  const levels: number[] = [];
  for (let level = 31; level >= 0; level -= 1) if (Math.floor(size / 2 ** level) % 2 === 1) levels.push(level);
  return levels;
}

/**
 * The root an inclusion proof implies for leaf `index` of a tree of `size`: PATH(m, D[n]) ends with
 * the hash of the subtree beside the one holding m, so it is read from its end inwards.
 */
export function rootFromInclusion(
  index: number,
  size: number,
  leaf: Buffer,
  proof: readonly Buffer[],
): Buffer | undefined {
  if (!Number.isSafeInteger(index) || index < 0 || index >= size || leaf.length !== HASH_BYTES) return undefined;
  if (proof.some((node) => node.length !== HASH_BYTES)) return undefined;
  const walk = (m: number, n: number, end: number): { hash: Buffer; used: number } | undefined => {
    if (n === 1) return { hash: leaf, used: 0 };
    if (end === 0) return undefined;
    const k = splitPoint(n);
    const sibling = proof[end - 1]!;
    const inner = m < k ? walk(m, k, end - 1) : walk(m - k, n - k, end - 1);
    if (!inner) return undefined;
    return { hash: m < k ? nodeHash(inner.hash, sibling) : nodeHash(sibling, inner.hash), used: inner.used + 1 };
  };
  const result = walk(index, size, proof.length);
  return result && result.used === proof.length ? result.hash : undefined;
}

export function verifyInclusion(
  index: number,
  size: number,
  leaf: Buffer,
  proof: readonly Buffer[],
  root: Buffer,
): boolean {
  const computed = rootFromInclusion(index, size, leaf, proof);
  return computed !== undefined && computed.equals(root);
}

/**
 * Whether `proof` shows the tree of size m (root `oldRoot`) to be a prefix of the tree of size n
 * (root `newRoot`). SUBPROOF(m, D[n], b) ends with the hash of the subtree beside the recursion,
 * so it is rebuilt from its end inwards, yielding both roots at once.
 */
export function verifyConsistency(
  m: number,
  n: number,
  oldRoot: Buffer,
  newRoot: Buffer,
  proof: readonly Buffer[],
): boolean {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m <= 0 || m > n) return false;
  if (m === n) return proof.length === 0 && oldRoot.equals(newRoot);
  if (
    oldRoot.length !== HASH_BYTES ||
    newRoot.length !== HASH_BYTES ||
    proof.some((node) => node.length !== HASH_BYTES)
  )
    return false;
  type Roots = { old: Buffer; new: Buffer; used: number };
  const walk = (size: number, total: number, whole: boolean, end: number): Roots | undefined => {
    if (size === total) {
      if (whole) return { old: oldRoot, new: oldRoot, used: 0 };
      return end === 0 ? undefined : { old: proof[end - 1]!, new: proof[end - 1]!, used: 1 };
    }
    if (end === 0) return undefined;
    const k = splitPoint(total);
    const beside = proof[end - 1]!;
    if (size <= k) {
      const left = walk(size, k, whole, end - 1);
      return left && { old: left.old, new: nodeHash(left.new, beside), used: left.used + 1 };
    }
    const right = walk(size - k, total - k, false, end - 1);
    return right && { old: nodeHash(beside, right.old), new: nodeHash(beside, right.new), used: right.used + 1 };
  };
  const roots = walk(m, n, true, proof.length);
  return roots !== undefined && roots.used === proof.length && roots.old.equals(oldRoot) && roots.new.equals(newRoot);
}
