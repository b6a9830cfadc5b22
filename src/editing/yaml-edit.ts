import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, isSeq, parseDocument, Scalar, type Document, type Node, type YAMLMap } from 'yaml';

/**
 * Small edits to a config file through the `yaml` Document API, so everything not edited keeps
 * its comments, order, quoting and flow style. Each setter changes the file only when the value
 * differs from what is written, and reports the change by name.
 */
export class YamlEditor {
  readonly changed: string[] = [];

  constructor(readonly doc: Document) {}

  static parse(text: string): YamlEditor {
    return new YamlEditor(parseDocument(text));
  }

  /** The file's text, indented as it was (2 spaces unless the file uses another width). */
  render(original: string): string {
    return this.doc.toString({ lineWidth: 0, flowCollectionPadding: false, indent: indentOf(original) });
  }

  /**
   * Sets `key` in `map` to a plain value, or removes it for `undefined`. A new key goes right after
   * `after` when that key exists (a description after `type`), else at the end.
   */
  set(map: YAMLMap, key: string, value: unknown, label: string, after?: string): void {
    const current = map.get(key, true) as Node | undefined;
    if (value === undefined) {
      if (!map.has(key)) return;
      map.delete(key);
      this.changed.push(label);
      return;
    }
    if (current !== undefined && isDeepStrictEqual(toJs(current), value)) return;
    if (current !== undefined || after === undefined || !map.has(after)) map.set(key, value);
    else {
      const index = map.items.findIndex((pair) => keyOf(pair.key) === after);
      map.items.splice(index + 1, 0, this.doc.createPair(key, value));
    }
    this.changed.push(label);
  }

  /** Replaces `key` with a node parsed elsewhere (its comments travel with it), unless it says the same. */
  setNode(map: YAMLMap, key: string, node: Node | null, label: string): void {
    const current = map.get(key, true) as Node | undefined;
    if (node === null) return this.set(map, key, undefined, label);
    if (current !== undefined && isDeepStrictEqual(toJs(current), node.toJSON())) return;
    map.set(key, node);
    this.changed.push(label);
  }

  /** Sets a script: the scalar keeps its place and becomes a `|` block when it spans lines. */
  setScript(map: YAMLMap, key: string, source: string, label: string): void {
    const current = map.get(key, true);
    if (isScalar(current) && current.value === source) return;
    const scalar = isScalar(current) ? current : new Scalar(source);
    scalar.value = source;
    if (source.includes('\n')) scalar.type = Scalar.BLOCK_LITERAL;
    if (scalar !== current) map.set(key, scalar);
    this.changed.push(label);
  }
}

/** The mapping under `key` (created empty when `create` and absent), or undefined when it is not a mapping. */
export function mapAt(doc: Document, parent: YAMLMap, key: string, create: boolean): YAMLMap | undefined {
  const node = parent.get(key, true);
  if (isMap(node)) return node;
  if (node !== undefined && !(isScalar(node) && node.value === null)) return undefined;
  if (!create) return undefined;
  const made = doc.createNode({}) as YAMLMap;
  parent.set(key, made);
  return made;
}

/** The `- name: <name>` item of a parameters list. */
export function parameterItem(parameters: Node | undefined, name: string): YAMLMap | undefined {
  if (!isSeq(parameters)) return undefined;
  return parameters.items.find((item): item is YAMLMap => isMap(item) && item.get('name') === name);
}

export function keyOf(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function toJs(node: Node): unknown {
  return isScalar(node) ? node.value : node.toJSON();
}

/** The indent width of the first indented line (2 when none is). */
function indentOf(text: string): number {
  const match = /^( +)\S/m.exec(text);
  const width = match ? match[1].length : 2;
  return width >= 2 && width <= 8 ? width : 2;
}
