import { isMap, isSeq, type Node } from 'yaml';

/**
 * The YAML node at `path` below `node` (keys of mappings, indexes of lists), or the nearest node on
 * the way there when the path goes further than the document: what a problem's line is taken from.
 */
export function nodeAtPath(node: Node | null, path: readonly (string | number)[]): Node | null {
  let current = node;
  for (const step of path) {
    const next = isMap(current)
      ? current.get(step, true)
      : isSeq(current)
        ? current.get(Number(step), true)
        : undefined;
    if (next === undefined || next === null) return current;
    current = next as Node;
  }
  return current;
}
