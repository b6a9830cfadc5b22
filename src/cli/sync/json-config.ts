import { isDeepStrictEqual } from 'node:util';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { FactorlyError } from '../../base/errors.js';
import { isPlainObject, mergeEntry, type ServerEntry } from './entry.js';
import { setServer, type Formatting } from './json-edit.js';

export interface JsonConfigOptions {
  /** Shown in errors (the path as the user would type it). */
  file: string;
  /** Cursor reads JSON with comments; Claude Code's .mcp.json must stay plain JSON. */
  comments: boolean;
}

export interface ConfigUpdate {
  /** The file's new text (equal to the old one when nothing changes). */
  text: string;
  /** The entry that was there before, if any. */
  previous: unknown;
}

/**
 * Sets `mcpServers.<name>` in a `{"mcpServers": {...}}` file (Claude Code, Cursor). The edit is
 * textual: every other server, key, comment and the key order stay byte for byte, and the file's
 * own indentation and line endings are used for what is inserted.
 */
export function updateJsonConfig(
  before: string | undefined,
  name: string,
  entry: ServerEntry,
  options: JsonConfigOptions,
): ConfigUpdate {
  const text = before === undefined || before.trim() === '' ? '{}\n' : before;
  const root = parseStrict(text, options);
  if (!isPlainObject(root)) throw invalid(options.file, 'its top level is not a JSON object');
  const servers = root.mcpServers;
  if (servers !== undefined && !isPlainObject(servers)) throw invalid(options.file, '"mcpServers" is not an object');
  const previous = servers?.[name];
  const next = mergeEntry(previous, entry);
  if (before !== undefined && isDeepStrictEqual(previous, next)) return { text: before, previous };
  return { text: withFinalNewline(setServer(text, name, next, formattingOf(text))), previous };
}

function parseStrict(text: string, options: JsonConfigOptions): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, {
    disallowComments: !options.comments,
    allowTrailingComma: options.comments,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first) {
    const { line, column } = position(text, first.offset);
    throw new FactorlyError(
      'CONFIG_INVALID',
      `${options.file}:${line}:${column}: ${describe(first)}; fix it (factorly left the file untouched)`,
    );
  }
  return value;
}

function describe(error: ParseError): string {
  const words = printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words === 'invalid comment token' ? 'comments are not allowed in this file' : `invalid JSON: ${words}`;
}

function position(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/** The file's indentation (first indented line) and line ending, so inserted text looks like the rest. */
function formattingOf(text: string): Formatting {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function invalid(file: string, why: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `${file}: ${why}; fix it (factorly left the file untouched)`);
}
