import type { Recorded } from './envelope.js';
import { CompactRange } from './merkle.js';
import { MemoryTreeNodes, newOrigin, TransparencyTree, type LogTree } from './transparency-tree.js';

/**
 * The tree of a log that has none stored (written before trees existed, and opened where it cannot
 * be written), rebuilt in memory from its events: the chain hashes are kept for the leaves.
 */
export async function rebuiltTree(events: AsyncIterable<Recorded>, origin = newOrigin()): Promise<LogTree> {
  const nodes = new MemoryTreeNodes();
  const hashes: string[] = [];
  const range = new CompactRange();
  for await (const event of events) {
    hashes.push(event.hash);
  }
  const tree = new TransparencyTree(nodes, (seq) => hashes[seq - 1], { size: hashes.length, origin });
  tree.extend(range, hashes);
  return tree;
}
