import { EMPTY_ROOT, nodeHash, splitPoint } from './merkle.js';

/**
 * Where a tree's complete subtrees come from: node(level, index) is the hash of the `2 ** level`
 * leaves from `index << level` (level 0: the leaf hashes). Every subtree the RFC 9162 proofs need
 * is such an aligned, complete one, or is split into them, so any stored tree can answer.
 */
export interface NodeSource {
  node(level: number, index: number): Buffer;
}

/** MTH(D[start : start + n]) for a range the RFC's recursion produces (start aligned to its split). */
export function subtreeHash(nodes: NodeSource, start: number, n: number): Buffer {
  if (n === 0) return EMPTY_ROOT;
  if ((n & (n - 1)) === 0 && start % n === 0) return nodes.node(Math.log2(n), start / n);
  const k = splitPoint(n);
  return nodeHash(subtreeHash(nodes, start, k), subtreeHash(nodes, start + k, n - k));
}

export function rootOf(nodes: NodeSource, size: number): Buffer {
  return subtreeHash(nodes, 0, size);
}

/** PATH(m, D[n]) of RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of `size` leaves. */
export function inclusionProof(nodes: NodeSource, index: number, size: number): Buffer[] {
  if (index < 0 || index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path = (m: number, start: number, n: number): Buffer[] => {
    if (n === 1) return [];
    const k = splitPoint(n);
    return m < k
      ? [...path(m, start, k), subtreeHash(nodes, start + k, n - k)]
      : [...path(m - k, start + k, n - k), subtreeHash(nodes, start, k)];
  };
  return path(index, 0, size);
}

/** PROOF(m, D[n]) of RFC 9162 §2.1.4.1: the tree of m leaves is a prefix of the tree of n. */
export function consistencyProof(nodes: NodeSource, m: number, n: number): Buffer[] {
  if (m <= 0 || m > n) throw new RangeError(`no consistency proof from ${m} to ${n}`);
  const subproof = (size: number, start: number, total: number, whole: boolean): Buffer[] => {
    if (size === total) return whole ? [] : [subtreeHash(nodes, start, total)];
    const k = splitPoint(total);
    return size <= k
      ? [...subproof(size, start, k, whole), subtreeHash(nodes, start + k, total - k)]
      : [...subproof(size - k, start + k, total - k, false), subtreeHash(nodes, start, k)];
  };
  return subproof(m, 0, n, true);
}
