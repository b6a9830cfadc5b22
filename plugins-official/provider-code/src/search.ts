import { FactorlyError } from '@factorly/error-kit';
import type { JsonValue, ToolDefinition } from 'factorly';
import { distance } from 'fastest-levenshtein';
import { rank, score, terms } from './ranking.js';
import { inputType, signature } from './signatures.js';
import { canonicalName, namespaceOf, toolPath } from './tool-paths.js';

export const DEFAULT_SEARCH_LIMIT = 10;
const MAX_DESCRIBE_PATHS = 20;
const DESCRIPTION_CUT = 200;

interface SearchInput {
  query?: string;
  namespace?: string;
  limit?: number;
  offset?: number;
}

interface Namespace {
  path: string;
  app: string;
}

/**
 * `tools.search(input)`, Executor v2's page shape: ranked `items`, the `namespaces` they belong to
 * (each once), `remaining` after the page and `next` (the input for the following page, or null).
 * A page stops at `limit` items or at `pageBytes` of JSON, whichever comes first, but never empty.
 */
export function search(tools: readonly ToolDefinition[], raw: JsonValue, pageBytes: number): JsonValue {
  const input = readSearchInput(raw);
  const offset = input.offset ?? 0;
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const scope = input.namespace === undefined ? tools : inNamespace(tools, canonicalName(input.namespace));
  const ranked = rank(scope, input.query ?? '');
  const next = { ...input, offset };
  let used = bytes({ items: [], namespaces: [], remaining: 0, next });
  const items: JsonValue[] = [];
  const namespaces: Namespace[] = [];
  for (const tool of ranked.slice(offset, offset + limit)) {
    const item = { path: toolPath(tool.name), description: firstLine(tool), ...inputType(tool) };
    const namespace = namespaceEntry(tool, namespaces);
    const cost = bytes(item) + 1 + (namespace ? bytes(namespace) + 1 : 0);
    if (items.length > 0 && used + cost > pageBytes) break;
    used += cost;
    items.push(item);
    if (namespace) namespaces.push(namespace);
  }
  const remaining = Math.max(0, ranked.length - offset - items.length);
  return {
    items,
    namespaces: namespaces as unknown as JsonValue,
    remaining,
    next: remaining > 0 ? { ...input, offset: offset + items.length } : null,
  };
}

/** `tools.search.describe({ paths })`: whole descriptions and signatures; unknown paths in `missing` with close matches. */
export function describe(tools: readonly ToolDefinition[], raw: JsonValue): JsonValue {
  const paths = readPaths(raw);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const items: JsonValue[] = [];
  const namespaces: Namespace[] = [];
  const missing: JsonValue[] = [];
  for (const path of paths) {
    const name = canonicalName(path);
    const tool = byName.get(name);
    if (!tool) {
      missing.push({ path, matches: closest(tools, name) });
      continue;
    }
    items.push({ path: toolPath(tool.name), description: tool.description, signature: signature(tool) });
    const namespace = namespaceEntry(tool, namespaces);
    if (namespace) namespaces.push(namespace);
  }
  return { items, namespaces: namespaces as unknown as JsonValue, missing };
}

/**
 * Up to 3 paths in the same app. Executor ranks them with its search alone; a misspelt name
 * shares no term with the tool meant, so edit distance goes first and the search score breaks ties.
 */
function closest(tools: readonly ToolDefinition[], name: string): string[] {
  const app = namespaceOf(name);
  const candidates =
    app === undefined ? tools.filter((tool) => namespaceOf(tool.name) === undefined) : inNamespace(tools, app);
  const wanted = terms(name);
  const scores = new Map(candidates.map((tool) => [tool.name, score(tool, wanted)]));
  return [...candidates]
    .sort(
      (a, b) =>
        distance(a.name, name) - distance(b.name, name) ||
        scores.get(b.name)! - scores.get(a.name)! ||
        a.name.localeCompare(b.name),
    )
    .slice(0, 3)
    .map((tool) => toolPath(tool.name));
}

function inNamespace(tools: readonly ToolDefinition[], namespace: string): ToolDefinition[] {
  return tools.filter((tool) => tool.name === namespace || tool.name.startsWith(`${namespace}.`));
}

function namespaceEntry(tool: ToolDefinition, seen: Namespace[]): Namespace | undefined {
  const app = namespaceOf(tool.name);
  if (app === undefined || seen.some((entry) => entry.app === app)) return undefined;
  return { path: toolPath(app), app };
}

function firstLine(tool: ToolDefinition): string {
  const line =
    tool.description
      .split('\n')
      .map((text) => text.trim())
      .find((text) => text.length > 0) ?? '';
  return line.length > DESCRIPTION_CUT ? line.slice(0, DESCRIPTION_CUT - 1) + '…' : line;
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function readSearchInput(raw: JsonValue): SearchInput {
  if (raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw invalid('tools.search takes one object: { query?, namespace?, limit?, offset? }');
  const { query, namespace, limit, offset, ...rest } = raw;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw invalid(
      `tools.search does not take ${unknown.map((key) => `"${key}"`).join(', ')}; it takes query, namespace, limit and offset`,
    );
  if (query !== undefined && typeof query !== 'string') throw invalid('tools.search: query must be a string');
  if (namespace !== undefined && typeof namespace !== 'string')
    throw invalid('tools.search: namespace must be a string');
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) > 0))
    throw invalid('tools.search: limit must be an integer greater than 0');
  if (offset !== undefined && !(Number.isInteger(offset) && (offset as number) >= 0))
    throw invalid('tools.search: offset must be an integer of 0 or more');
  return raw as SearchInput;
}

function readPaths(raw: JsonValue): string[] {
  const paths = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw.paths : undefined;
  if (
    !Array.isArray(paths) ||
    paths.length < 1 ||
    paths.length > MAX_DESCRIBE_PATHS ||
    !paths.every((path) => typeof path === 'string')
  ) {
    throw invalid(
      `tools.search.describe takes { paths: [...] } with 1 to ${MAX_DESCRIBE_PATHS} paths from tools.search`,
    );
  }
  return paths as string[];
}

function invalid(message: string): FactorlyError {
  return new FactorlyError('PARAMS_INVALID', `InvalidToolInput: ${message}`);
}
