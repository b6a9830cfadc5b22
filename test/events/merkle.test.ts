import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompactRange, EMPTY_ROOT, leafHash, verifyConsistency, verifyInclusion } from '../../src/events/merkle.js';
import { consistencyProof, inclusionProof, rootOf, type NodeSource } from '../../src/events/merkle-proofs.js';
import { REPO } from '../helpers/project.js';
import { rfcLeafHash, rfcRoot, rfcVerifyConsistency, rfcVerifyInclusion } from '../helpers/rfc9162.js';

interface Vectors {
  leafInputs: string[];
  rootHashes: string[];
  inclusion: {
    file: string;
    leafIdx: number;
    treeSize: number;
    root: string;
    leafHash: string;
    proof: string[];
    wantErr: boolean;
  }[];
  consistency: {
    file: string;
    size1: number;
    size2: number;
    root1: string;
    root2: string;
    proof: string[];
    wantErr: boolean;
  }[];
}

const vectors = JSON.parse(readFileSync(join(REPO, 'test', 'fixtures', 'merkle-vectors.json'), 'utf8')) as Vectors;
const hex = (text: string): Buffer => Buffer.from(text, 'hex');

/** Every complete subtree of a tree built in memory by the product's CompactRange, as a NodeSource. */
function builtTree(leaves: readonly Buffer[]): NodeSource & { range: CompactRange } {
  const nodes = new Map<string, Buffer>();
  const range = new CompactRange();
  leaves.forEach((leaf, index) => {
    const hash = leafHash(leaf);
    nodes.set(`0:${index}`, hash);
    range.push(hash, (node) => nodes.set(`${node.level}:${node.index}`, node.hash));
  });
  return {
    range,
    node: (level, index) => {
      const found = nodes.get(`${level}:${index}`);
      if (!found) throw new Error(`no node ${level}:${index}`);
      return found;
    },
  };
}

const randomLeaves = (n: number): Buffer[] =>
  Array.from({ length: n }, (_, i) => Buffer.from(`leaf-${i}`.padEnd(32, '.')));

describe('RFC 9162 Merkle tree against the transparency-dev/merkle vectors', () => {
  it('builds the reference roots for every size of the reference leaves', () => {
    const leaves = vectors.leafInputs.map(hex);
    for (let size = 0; size <= leaves.length; size += 1) {
      const tree = builtTree(leaves.slice(0, size));
      expect(tree.range.root().toString('hex')).toBe(vectors.rootHashes[size]);
      expect(rootOf(tree, size).toString('hex')).toBe(vectors.rootHashes[size]);
      expect(rfcRoot(leaves.slice(0, size)).toString('hex')).toBe(vectors.rootHashes[size]);
    }
    expect(EMPTY_ROOT.toString('hex')).toBe(vectors.rootHashes[0]);
  });

  it('accepts and rejects every inclusion vector as the reference does, in both verifiers', () => {
    for (const v of vectors.inclusion) {
      const args = [v.leafIdx, v.treeSize, hex(v.leafHash), v.proof.map(hex), hex(v.root)] as const;
      expect({ file: v.file, ok: verifyInclusion(...args) }).toEqual({ file: v.file, ok: !v.wantErr });
      expect({ file: v.file, ok: rfcVerifyInclusion(...args) }).toEqual({ file: v.file, ok: !v.wantErr });
    }
  });

  it('accepts and rejects every consistency vector as the reference does, in both verifiers', () => {
    for (const v of vectors.consistency) {
      const args = [v.size1, v.size2, hex(v.root1), hex(v.root2), v.proof.map(hex)] as const;
      expect({ file: v.file, ok: verifyConsistency(...args) }).toEqual({ file: v.file, ok: !v.wantErr });
      expect({ file: v.file, ok: rfcVerifyConsistency(...args) }).toEqual({ file: v.file, ok: !v.wantErr });
    }
  });

  it('produces the reference proofs for the reference tree', () => {
    const tree = builtTree(vectors.leafInputs.map(hex));
    for (const v of vectors.inclusion.filter((x) => x.file.endsWith('happy-path.json'))) {
      expect(inclusionProof(tree, v.leafIdx, v.treeSize).map((b) => b.toString('hex'))).toEqual(v.proof);
    }
    for (const v of vectors.consistency.filter((x) => x.file.endsWith('happy-path.json') && x.size1 < x.size2)) {
      expect(consistencyProof(tree, v.size1, v.size2).map((b) => b.toString('hex'))).toEqual(v.proof);
    }
  });
});

describe('proofs from the product tree, checked by the RFC-only verifier', () => {
  it('every inclusion and consistency proof of trees up to 70 leaves verifies, and a wrong one does not', () => {
    const leaves = randomLeaves(70);
    const tree = builtTree(leaves);
    for (let n = 1; n <= leaves.length; n += 1) {
      const root = rfcRoot(leaves.slice(0, n));
      expect(rootOf(tree, n).equals(root)).toBe(true);
      for (let m = 0; m < n; m += 1) {
        const path = inclusionProof(tree, m, n);
        expect(rfcVerifyInclusion(m, n, rfcLeafHash(leaves[m]!), path, root)).toBe(true);
        expect(rfcVerifyInclusion(m, n, rfcLeafHash(leaves[(m + 1) % n]!), path, root)).toBe(n === 1);
        const proof = consistencyProof(tree, m + 1, n);
        const old = rfcRoot(leaves.slice(0, m + 1));
        expect(rfcVerifyConsistency(m + 1, n, old, root, proof)).toBe(true);
        expect(verifyConsistency(m + 1, n, old, root, proof)).toBe(true);
        const forged = rfcRoot([Buffer.from('forged'), ...leaves.slice(1, m + 1)]);
        if (m + 1 < n) expect(rfcVerifyConsistency(m + 1, n, forged, root, proof)).toBe(false);
      }
    }
  });
});
