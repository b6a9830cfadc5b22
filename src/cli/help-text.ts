/**
 * Help text written across source lines, turned into what oclif should be given: paragraphs. oclif
 * wraps every line of a description to the terminal's width itself, so a line break kept from the
 * source would show as a break in mid-sentence. Lines are joined with a space; a blank line separates
 * paragraphs; a line that starts a list item ("- ", "* ", "1. ") keeps its own line.
 */
export function paragraphs(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = strings.reduce((joined, part, index) => `${joined}${String(values[index - 1])}${part}`);
  return text
    .trim()
    .split(/\n[ \t]*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.trim())
        .reduce((joined, line) => (LIST_ITEM.test(line) ? `${joined}\n${line}` : `${joined} ${line}`)),
    )
    .join('\n\n');
}

const LIST_ITEM = /^([-*]|\d+\.) /;
