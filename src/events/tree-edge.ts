import { CompactRange } from './merkle.js';
import type { TreeEdge } from './log-folds.js';
import { TreeIncomplete, type LogTree } from './transparency-tree.js';

/**
 * The tree of a log a node holds only the right edge of (a log over a shared stream, most of which
 * it never read): its size, origin and root, enough to sign a checkpoint. Roots of other sizes and
 * proofs need the events: `TreeIncomplete`, and the caller rebuilds the tree from them (see `proveCall`).
 */
export class EdgeOnlyTree implements LogTree {
  constructor(
    private readonly edge: TreeEdge,
    readonly origin: string,
  ) {}

  get size(): number {
    return this.edge.size;
  }

  root(size = this.edge.size): Buffer {
    if (!Number.isSafeInteger(size) || size < 0 || size > this.edge.size)
      throw new RangeError(`the tree has ${this.edge.size} leaves; there is no tree of size ${size}`);
    if (size !== this.edge.size) throw this.incomplete(`the root of its first ${size} leaves`);
    return new CompactRange(this.edge.size, [...this.edge.peaks]).root();
  }

  inclusionProof(index: number, size = this.edge.size): Buffer[] {
    throw this.incomplete(`an inclusion proof of leaf ${index} in ${size}`);
  }

  consistencyProof(from: number, to = this.edge.size): Buffer[] {
    throw this.incomplete(`a consistency proof from ${from} to ${to} leaves`);
  }

  private incomplete(what: string): TreeIncomplete {
    return new TreeIncomplete(
      `${what} needs the log's events: this node holds only the right edge of the tree of ${this.edge.size} leaves`,
    );
  }
}
