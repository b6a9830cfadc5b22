import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ToolDefinition } from 'factorly';

/**
 * The tool's entry as written in its config file: the line it starts on and every following line
 * indented deeper. Undefined for tools no file defines (built-ins) or a file that cannot be read.
 */
export function toolYaml(tool: ToolDefinition, baseDir: string): string | undefined {
  if (tool.source.line < 1) return undefined;
  const path = isAbsolute(tool.source.file) ? tool.source.file : join(baseDir, tool.source.file);
  let lines: string[];
  try {
    lines = readFileSync(path, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const start = tool.source.line - 1;
  if (start >= lines.length) return undefined;
  const indent = indentOf(lines[start]);
  let end = start + 1;
  while (end < lines.length && (lines[end].trim() === '' || indentOf(lines[end]) > indent)) end += 1;
  return lines.slice(start, end).join('\n').trimEnd();
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}
