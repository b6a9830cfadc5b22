import { randomBytes } from 'node:crypto';
import { chainLeaf, CompactRange, nodeHash, peakLevels } from './merkle.js';
import { consistencyProof, inclusionProof, rootOf, type NodeSource } from './merkle-proofs.js';

/**
 * Where a log keeps the complete subtrees of its Merkle tree: those of `2 ** STORED_FROM` leaves
 * and up (about one write per eight events); smaller ones are rebuilt from the chain hashes of
 * their events, at most 15 of them. Written only inside the log's append, so it always covers
 * exactly the events committed with it.
 */
export const STORED_FROM = 4;

export interface TreeNodeStore {
  get(level: number, index: number): Buffer | undefined;
  put(level: number, index: number, hash: Buffer): void;
}

/** What a log's tree is: how many leaves it has and which log it belongs to (the checkpoint origin). */
export interface TreeHead {
  size: number;
  origin: string;
}

/** A read view of a log's RFC 9162 tree: roots of any size and proofs, from the stored nodes. */
export interface LogTree {
  readonly origin: string;
  readonly size: number;
  root(size?: number): Buffer;
  inclusionProof(index: number, size?: number): Buffer[];
  consistencyProof(from: number, to?: number): Buffer[];
}

/** A fresh log's name in checkpoints: random, so two projects' logs never share one. */
export function newOrigin(): string {
  return `factorly.local/log/${randomBytes(8).toString('hex')}`;
}

/** The tree over a node store and the chain hashes of the events (leaf i = event seq i + 1). */
export class TransparencyTree implements NodeSource, LogTree {
  constructor(
    private readonly nodes: TreeNodeStore,
    private readonly chainHashAt: (seq: number) => string | undefined,
    readonly head: TreeHead,
  ) {}

  get origin(): string {
    return this.head.origin;
  }

  get size(): number {
    return this.head.size;
  }

  node(level: number, index: number): Buffer {
    if (level === 0) {
      const hash = this.chainHashAt(index + 1);
      if (hash === undefined) throw new TreeIncomplete(`event ${index + 1} is missing`);
      return chainLeaf(hash);
    }
    if (level < STORED_FROM) return nodeHash(this.node(level - 1, 2 * index), this.node(level - 1, 2 * index + 1));
    const stored = this.nodes.get(level, index);
    if (!stored) throw new TreeIncomplete(`node ${level}/${index} is missing`);
    return stored;
  }

  /** The right edge of the tree at `size`, from the stored peaks: what the next append extends. */
  frontier(size = this.head.size): CompactRange {
    const peaks: Buffer[] = [];
    let start = 0;
    for (const level of peakLevels(size)) {
      peaks.push(this.node(level, start / 2 ** level));
      start += 2 ** level;
    }
    return new CompactRange(size, peaks);
  }

  /** Adds leaves to `range`, storing every subtree they complete. */
  extend(range: CompactRange, chainHashes: Iterable<string>): CompactRange {
    const keep = (node: { level: number; index: number; hash: Buffer }): void => {
      if (node.level >= STORED_FROM) this.nodes.put(node.level, node.index, node.hash);
    };
    for (const hash of chainHashes) range.push(chainLeaf(hash), keep);
    return range;
  }

  root(size = this.head.size): Buffer {
    this.check(size);
    return rootOf(this, size);
  }

  inclusionProof(index: number, size = this.head.size): Buffer[] {
    this.check(size);
    return inclusionProof(this, index, size);
  }

  consistencyProof(from: number, to = this.head.size): Buffer[] {
    this.check(to);
    return consistencyProof(this, from, to);
  }

  private check(size: number): void {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.head.size) {
      throw new RangeError(`the tree has ${this.head.size} leaves; there is no tree of size ${size}`);
    }
  }
}

/** A tree node a proof needs is not stored: the tree index does not cover the events it should. */
export class TreeIncomplete extends Error {}

/** Nodes kept in a Map: the memory log's store, and a tree rebuilt for a log that cannot be written. */
export class MemoryTreeNodes implements TreeNodeStore {
  private readonly nodes = new Map<number, Buffer>();

  get(level: number, index: number): Buffer | undefined {
    return this.nodes.get(nodeKey(level, index));
  }

  put(level: number, index: number, hash: Buffer): void {
    this.nodes.set(nodeKey(level, index), hash);
  }
}

/** One number per node: level in the high part, index (< 2^32, a uint32 seq) in the low. */
export function nodeKey(level: number, index: number): number {
  return level * 2 ** 32 + index;
}
