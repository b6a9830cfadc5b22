/** ANSI escape sequences: CSI (colours, cursor moves) and OSC (titles, hyperlinks). */
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Three or more line breaks (blank lines with only spaces count as blank) become one blank line. */
export function collapseBlankLines(text: string): string {
  return text.replace(/\n(?:[ \t]*\n){2,}/g, '\n\n');
}

/** Compacts output that is one JSON document; the whitespace around it is kept. Anything else is unchanged. */
export function compactJson(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || !'[{'.includes(trimmed[0])) return text;
  try {
    const compact = JSON.stringify(JSON.parse(trimmed));
    const start = text.indexOf(trimmed);
    return text.slice(0, start) + compact + text.slice(start + trimmed.length);
  } catch {
    return text;
  }
}

/** Runs of identical consecutive lines become `<line> [repeated N times]`. */
export function foldRepeatedLines(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let run = 1;
    while (i + run < lines.length && lines[i + run] === lines[i]) run += 1;
    // A trailing newline leaves one empty last "line"; never fold it into a count.
    out.push(run > 1 && lines[i] !== '' ? `${lines[i]} [repeated ${run} times]` : lines.slice(i, i + run).join('\n'));
    i += run;
  }
  return out.join('\n');
}
