/** Renders rows as left-aligned columns separated by two spaces, cutting the last column to `width`. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[], width = 100): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const lines = all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  return lines.map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line)).join('\n');
}
