// The one place factorly makes text safe for a terminal: the CLI's tables and outcomes, the kernel's
// warnings (through src/base/printable.ts) and the official plugins' stderr lines all use it.

/**
 * Text for a person's terminal. Tool names, params, outputs and errors come from agents, upstream
 * servers and the log, and a terminal obeys what it prints: ESC sequences recolour, move the
 * cursor, rewrite the title or the clipboard; a lone carriage return or a bidirectional override
 * makes a line read differently than it is, and an invisible format character (Unicode Cf: a
 * zero-width space, a soft hyphen, a tag) makes two different names look alike. Every such
 * character is shown as a visible escape (`\x1b`, `\u202e`) instead; the zero-width joiners
 * (U+200C, U+200D) stay, as scripts and emoji sequences need them. `--json` output is never passed
 * through here: it stays exact.
 */
const IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]|(?![\u200c\u200d])\p{Cf}|\r(?!\n)/gu;
/** On one line (a table cell, a name) line breaks and tabs are escaped too: they would forge rows. */
const IN_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|(?![\u200c\u200d])\p{Cf}/gu;

/** Multi-line text (a tool's output, an error, a script's source): keeps `\n`, `\r\n` and tabs. */
export function printableText(text: string): string {
  return text.replace(IN_TEXT, escape);
}

/** One line of text (a name, a table cell, a reason): every control character escaped. */
export function printableLine(text: string): string {
  return text.replace(IN_LINE, escape);
}

function escape(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * One diagnostic line on stderr, escaped: the one way factorly and its plugins write text an agent,
 * an upstream server or a tool chose (an error, a name, a reason) to the terminal of the person
 * running it. `prefix` says who speaks (`warning: `, `factorly: `, `factorly ui: `); `oneLine` escapes
 * line breaks too, for a line that must stay one (a reason quoting a server's stderr).
 */
export function writeStderrLine(prefix: string, message: string, options: { oneLine?: boolean } = {}): void {
  const text = message.replace(/\n$/, '');
  process.stderr.write(`${prefix}${options.oneLine ? printableLine(text) : printableText(text)}\n`);
}
