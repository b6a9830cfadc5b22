import { printableLine } from '../base/printable.js';

/**
 * Renders rows as left-aligned columns separated by two spaces, fitting `width`: the `flex` column
 * (a description, say) is narrowed first, its cells cut with "…"; any line still too long is cut.
 * Cells are made printable first (control characters escaped), so no cell can forge a row.
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width = 100,
  flex?: number,
): string {
  const all = [headers, ...rows].map((row) => row.map(printableLine));
  const widths = headers.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  if (flex !== undefined) {
    const excess = widths.reduce((sum, w) => sum + w + 2, -2) - width;
    // Never narrower than its header: a cut header names no column.
    if (excess > 0) widths[flex] = Math.max(10, headers[flex]!.length, widths[flex]! - excess);
  }
  const fit = (cell: string, i: number): string =>
    cell.length > widths[i] ? `${cell.slice(0, widths[i] - 1)}…` : cell;
  const lines = all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? fit(cell, i) : fit(cell, i).padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  return lines.map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line)).join('\n');
}
