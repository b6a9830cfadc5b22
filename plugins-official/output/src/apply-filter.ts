import type { FilterSpec } from './filter-spec.js';
import { runPipe } from './pipe.js';

/**
 * The filter stages, in the reference's order: match_output → keep/strip lines → replace →
 * head/tail lines → max lines → json_path → pipe. A match_output hit replaces the output and ends
 * the filter.
 */
export async function applyFilter(text: string, filter: FilterSpec): Promise<string> {
  for (const rule of filter.matchOutput) {
    if (rule.pattern.test(text) && !(rule.unless?.test(text) ?? false)) return rule.message;
  }
  let out = lineStages(text, filter);
  if (filter.jsonPath !== undefined) out = await selectJson(out, filter.jsonPath);
  if (filter.pipe) out = await runPipe(out, filter.pipe);
  return out;
}

function lineStages(text: string, filter: FilterSpec): string {
  const endsWithNewline = text.endsWith('\n');
  let lines = (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  if (filter.keepLines.length > 0) lines = lines.filter((line) => filter.keepLines.some((p) => p.test(line)));
  else if (filter.stripLines.length > 0) lines = lines.filter((line) => !filter.stripLines.some((p) => p.test(line)));
  for (const { pattern, replacement } of filter.replace)
    lines = lines.map((line) => line.replace(pattern, replacement));
  lines = headAndTail(lines, filter.headLines, filter.tailLines);
  if (filter.maxLines !== undefined && lines.length > filter.maxLines)
    lines = [...lines.slice(0, filter.maxLines), `... truncated to ${filter.maxLines} lines`];
  const joined = lines.join('\n');
  return endsWithNewline && joined !== '' ? `${joined}\n` : joined;
}

function headAndTail(lines: string[], head: number | undefined, tail: number | undefined): string[] {
  if (head === undefined && tail === undefined) return lines;
  const keepHead = head ?? 0;
  const keepTail = tail ?? 0;
  if (keepHead + keepTail >= lines.length) return lines;
  const omitted = lines.length - keepHead - keepTail;
  return [...lines.slice(0, keepHead), `... ${omitted} lines omitted ...`, ...lines.slice(lines.length - keepTail)];
}

/** One match → its text (a string as is, anything else as JSON); several → a JSON array; not JSON or no match → unchanged. */
async function selectJson(text: string, path: string): Promise<string> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return text;
  }
  const { query } = await import('jsonpath-rfc9535');
  const matches = query(document as Parameters<typeof query>[0], path);
  if (matches.length === 0) return text;
  if (matches.length === 1) return typeof matches[0] === 'string' ? matches[0] : JSON.stringify(matches[0]);
  return JSON.stringify(matches);
}
