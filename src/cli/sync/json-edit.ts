import { applyEdits, findNodeAtLocation, modify, parseTree, type Node } from 'jsonc-parser';

export interface Formatting {
  insertSpaces: boolean;
  tabSize: number;
  eol: string;
}

/**
 * Sets `mcpServers[name]` by splicing text, so that no other byte changes. jsonc-parser's own
 * `modify` re-formats every line an edit touches, which would re-flow a sibling server written on
 * one line; it is used only where there is no sibling to disturb (no `mcpServers`, or an empty one,
 * or a one-line object).
 */
export function setServer(text: string, name: string, value: unknown, format: Formatting): string {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const servers = tree && findNodeAtLocation(tree, ['mcpServers']);
  const existing = servers && findNodeAtLocation(servers, [name]);
  if (existing?.parent)
    return splice(
      text,
      existing.offset,
      existing.length,
      render(value, lineIndent(text, existing.parent.offset), format),
    );
  const last = servers?.type === 'object' ? servers.children?.at(-1) : undefined;
  if (servers && last) {
    const inserted = appendProperty(text, servers, last, `${JSON.stringify(name)}: `, value, format);
    if (inserted !== undefined) return inserted;
  }
  return applyEdits(text, modify(text, ['mcpServers', name], value, { formattingOptions: format }));
}

/** Adds a property on its own line after `last`, at its indentation; undefined when `}` shares that line. */
function appendProperty(
  text: string,
  object: Node,
  last: Node,
  key: string,
  value: unknown,
  format: Formatting,
): string | undefined {
  const end = last.offset + last.length;
  const lineEnd = lineEndAfter(text, end);
  const closing = object.offset + object.length - 1;
  if (closing < lineEnd) return undefined;
  const indent = lineIndent(text, last.offset);
  const trailingComma = /^\s*,/.test(text.slice(end, lineEnd));
  const property = `${format.eol}${indent}${key}${render(value, indent, format)}${trailingComma ? ',' : ''}`;
  const withProperty = splice(text, lineEnd, 0, property);
  return trailingComma ? withProperty : splice(withProperty, end, 0, ',');
}

/** JSON for `value` in the file's indentation, continuation lines starting at `indent`. */
function render(value: unknown, indent: string, format: Formatting): string {
  const unit = format.insertSpaces ? ' '.repeat(format.tabSize) : '\t';
  return JSON.stringify(value, null, unit).split('\n').join(`${format.eol}${indent}`);
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

/** Offset of the line break ending the line `offset` is on (before `\r\n` too), or the text's end. */
function lineEndAfter(text: string, offset: number): number {
  const at = text.indexOf('\n', offset);
  if (at < 0) return text.length;
  return text[at - 1] === '\r' ? at - 1 : at;
}

function splice(text: string, offset: number, length: number, insert: string): string {
  return text.slice(0, offset) + insert + text.slice(offset + length);
}
