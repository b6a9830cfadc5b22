import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';

/** A tool entry as written in a file, before validation. */
export interface RawTool {
  name: string;
  value: unknown;
  /** The YAML node of the entry, so validators can point at nested lines. */
  node: Node | null;
  /** The file as shown in messages (relative to the project). */
  file: string;
  /** The file's path as read. */
  path: string;
  line: number;
  lineOf(node: Node | null | undefined): number;
}

/** One parsed config file. */
export interface ConfigSource {
  file: string;
  /** The file as shown in messages (relative to the project). */
  shown: string;
  /** Top-level keys other than `tools` (structured files only). */
  settings: Record<string, unknown>;
  /** The YAML node of each setting, so a problem inside one names its line. */
  settingNodes: Record<string, Node | null>;
  lineOf(node: Node | null | undefined): number;
  tools: RawTool[];
  text: string;
  /** For a setting written as a mapping: the line of the setting (`''`) and of each of its keys. */
  settingLines?: Record<string, Record<string, number>>;
}

/**
 * Parses one config file. The main file is always structured (`tools:` and settings); a loose file
 * is structured when it uses any known top-level key (`known`: the kernel's and the plugins'),
 * otherwise it is a flat `name: tool` map.
 */
export function readConfigSource(
  file: string,
  baseDir: string,
  main: boolean,
  known: readonly string[],
  given?: string,
): ConfigSource {
  const shown = relative(baseDir, file) || file;
  return parseConfigSource(given ?? readFileSync(file, 'utf8'), file, shown, main, known);
}

/** `readConfigSource` of a text already read, shown in messages as `shown` (a blueprint from a URL). */
export function parseConfigSource(
  text: string,
  file: string,
  shown: string,
  main: boolean,
  known: readonly string[],
): ConfigSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const lineOf = (node: Node | null | undefined): number => (node?.range ? lineCounter.linePos(node.range[0]).line : 1);
  if (doc.errors.length > 0) {
    const [error] = doc.errors;
    const { line, col } = error.linePos?.[0] ?? { line: 1, col: 1 };
    throw new FactorlyError('CONFIG_INVALID', `config: ${shown}:${line}:${col}: ${firstLine(error.message)}`);
  }
  const source: ConfigSource = { file, shown, settings: {}, settingNodes: {}, tools: [], text, lineOf };
  if (doc.contents === null) return source;
  if (!isMap(doc.contents)) {
    throw new FactorlyError(
      'CONFIG_INVALID',
      `config: ${shown}:${lineOf(doc.contents)}: expected a mapping of settings or tools`,
    );
  }
  const root = doc.contents;
  // Values come from the whole document, so an alias (`auth: *auth`) reads as what its anchor holds.
  let plain: unknown;
  try {
    plain = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw new FactorlyError('CONFIG_INVALID', `config: ${shown}: ${firstLine((error as Error).message)}`);
  }
  const isKnownKey = (key: string): boolean => known.includes(key);
  const structured = main || root.items.some((pair) => isKnownKey(keyOf(pair)));
  if (!structured) {
    source.tools = toolEntries(root, source, lineOf, plain);
    return source;
  }
  for (const pair of root.items) {
    const key = keyOf(pair);
    if (key === 'tools') {
      if (pair.value === null || (isScalar(pair.value) && pair.value.value === null)) continue;
      if (!isMap(pair.value)) {
        throw new FactorlyError(
          'CONFIG_INVALID',
          `config: ${shown}:${lineOf(pair.value as Node)}: "tools" must be a mapping of tool names to definitions`,
        );
      }
      source.tools = toolEntries(pair.value, source, lineOf, (plain as Record<string, unknown>).tools);
    } else if (isKnownKey(key)) {
      source.settings[key] = ((plain as Record<string, unknown>)[key] ?? null) as unknown;
      source.settingNodes[key] = (pair.value ?? null) as Node | null;
      (source.settingLines ??= {})[key] = isMap(pair.value) ? linesOf(pair, lineOf) : { '': lineOf(pair.key as Node) };
    } else {
      const hint = didYouMean(key, known);
      throw new FactorlyError(
        'CONFIG_INVALID',
        `config: unknown top-level key "${key}"${hint} (${shown}:${lineOf(pair.key as Node)})`,
      );
    }
  }
  return source;
}

function linesOf(pair: Pair, lineOf: RawTool['lineOf']): Record<string, number> {
  const lines: Record<string, number> = { '': lineOf(pair.key as Node) };
  for (const item of (pair.value as YAMLMap).items) lines[keyOf(item)] = lineOf(item.key as Node);
  return lines;
}

function toolEntries(map: YAMLMap, source: ConfigSource, lineOf: RawTool['lineOf'], plain: unknown): RawTool[] {
  const values = (plain ?? {}) as Record<string, unknown>;
  return map.items.map((pair) => {
    const node = (pair.value ?? null) as Node | null;
    const name = keyOf(pair);
    return {
      name,
      value: node === null ? null : (values[name] ?? null),
      node,
      file: source.shown,
      path: source.file,
      line: lineOf(pair.key as Node),
      lineOf,
    };
  });
}

function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}
