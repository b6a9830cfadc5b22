import { isDeepStrictEqual } from 'node:util';
import { parse, stringify, TomlError } from 'smol-toml';
import { FactorlyError } from '../../base/errors.js';
import { isPlainObject, mergeEntry, type ServerEntry } from './entry.js';
import type { ConfigUpdate } from './json-config.js';

/** A table or array-of-tables header line (with its line ending), its key in group 1. */
const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?\s*$/;

/**
 * Sets `[mcp_servers.<name>]` in Codex's config.toml. TOML libraries re-serialise whole documents
 * and drop comments, so the edit is textual: only the lines of that table (and its sub-tables) are
 * replaced by smol-toml's rendering of the merged entry; every other line stays byte for byte.
 * The result is parsed again and must equal the old document with just that entry changed.
 */
export function updateTomlConfig(
  before: string | undefined,
  name: string,
  entry: ServerEntry,
  file: string,
): ConfigUpdate {
  const text = before ?? '';
  const document = parseToml(text, file);
  const servers = document.mcp_servers;
  if (servers !== undefined && !isPlainObject(servers)) throw invalid(file, '"mcp_servers" is not a table');
  const previous = servers?.[name];
  const next = mergeEntry(previous, entry);
  if (before !== undefined && sameData(previous, next)) return { text: before, previous };

  const rendered = stringify({ mcp_servers: { [name]: next } });
  const updated = replaceTables(text, ['mcp_servers', name], rendered);
  const expected = { ...document, mcp_servers: { ...(servers ?? {}), [name]: next } };
  if (!sameData(parseQuietly(updated), expected)) {
    throw invalid(
      file,
      `[mcp_servers.${name}] is written inline or as dotted keys, which factorly cannot update without rewriting the file; give it its own [mcp_servers.${name}] table`,
    );
  }
  return { text: updated, previous };
}

/** Removes every table whose header starts with `path` and puts `rendered` where the first one was. */
function replaceTables(text: string, path: string[], rendered: string): string {
  const lines = text.split(/(?<=\n)/);
  const kept: string[] = [];
  let insertAt: number | undefined;
  let skipping = false;
  for (const [i, line] of lines.entries()) {
    const header = HEADER.exec(line);
    if (header) skipping = startsWith(keyPath(header[1]), path);
    if (skipping && insertAt === undefined) insertAt = kept.length;
    // A comment or blank line just before the next table belongs to that table: keep it.
    if (!skipping || (isTrivia(line) && leadsToOtherTable(lines, i, path))) kept.push(line);
  }
  if (insertAt === undefined) return appendBlock(text, rendered);
  const following = kept[insertAt];
  kept.splice(insertAt, 0, following === undefined || following.trim() === '' ? rendered : `${rendered}\n`);
  return kept.join('');
}

function appendBlock(text: string, rendered: string): string {
  if (text.trim() === '') return rendered;
  const ending = text.endsWith('\n') ? '' : '\n';
  return `${text}${ending}\n${rendered}`;
}

/** True when only comments and blank lines follow line `i` until the end or a table not under `path`. */
function leadsToOtherTable(lines: string[], i: number, path: string[]): boolean {
  for (let j = i + 1; j < lines.length; j++) {
    const header = HEADER.exec(lines[j]);
    if (header) return !startsWith(keyPath(header[1]), path);
    if (!isTrivia(lines[j])) return false;
  }
  return true;
}

function isTrivia(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

/** `mcp_servers . "factorly"` → ['mcp_servers', 'factorly'] (bare, basic and literal keys). */
function keyPath(header: string): string[] {
  const parts = header.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^.]+/g) ?? [];
  return parts
    .map((part) => part.trim())
    .map((part) => (part.startsWith('"') ? (JSON.parse(part) as string) : part.replace(/^'|'$/g, '')));
}

function startsWith(path: string[], prefix: string[]): boolean {
  return prefix.every((part, i) => path[i] === part);
}

function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.replace(/^Invalid TOML document: /, '').split('\n')[0];
    throw new FactorlyError(
      'CONFIG_INVALID',
      `${file}:${error.line}:${error.column}: invalid TOML: ${reason}; fix it (factorly left the file untouched)`,
    );
  }
}

/** Equal as data: smol-toml builds null-prototype objects and dates, which strict equality tells apart. */
function sameData(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(asPlain(a), asPlain(b));
}

function asPlain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function parseQuietly(text: string): unknown {
  try {
    return parse(text);
  } catch {
    return undefined;
  }
}

function invalid(file: string, why: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `${file}: ${why} (factorly left the file untouched)`);
}
