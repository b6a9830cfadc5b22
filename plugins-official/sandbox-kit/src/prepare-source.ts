import { createHash } from 'node:crypto';
import { parse, tokenizer, type Node, type Token } from 'acorn';
import type { SourceDiagnostic } from 'factorly';

/** Longest script accepted (characters), as in Executor's `execute`. */
export const MAX_SOURCE_CHARS = 65_536;

export type PreparedSource = { ok: true; text: string; sha: string } | { ok: false; diagnostics: SourceDiagnostic[] };

/**
 * Checks a script once, in the host, without running it, so that every engine accepts exactly the
 * same programs and reports problems at the same line and column of the user's source.
 *
 * SES refuses any source text containing `import(`, `<!--` or `-->` (even inside a string or a
 * comment) and a direct `eval(`; QuickJS does not. Inside string and template literals those
 * sequences are rewritten to escapes that keep the value; in comments they are blanked; anywhere
 * else the script is refused here with a location.
 */
export function prepareSource(source: string): PreparedSource {
  const sha = createHash('sha256').update(source).digest('hex');
  if (source.length > MAX_SOURCE_CHARS) {
    return fail(`script is ${source.length} characters; the limit is ${MAX_SOURCE_CHARS}`, 1, 1);
  }
  let program: Node;
  try {
    program = parse(source, {
      ecmaVersion: 2023,
      sourceType: 'script',
      locations: true,
      allowReturnOutsideFunction: false,
    });
  } catch (error) {
    return fromAcorn(error);
  }
  if (!declaresRun(program)) return fail('the script must declare `async function run(params)` at top level', 1, 1);
  const rewritten = rewriteSensitive(source);
  if (!rewritten.ok) return rewritten;
  return { ok: true, text: rewritten.text, sha };
}

const LITERALS = new Set(['string', 'template', 'regexp', '`', '${']);
const SENSITIVE = /import\s*\(|<!--|-->|\beval\s*\(/g;

function rewriteSensitive(source: string): PreparedSource {
  if (!SENSITIVE.test(source)) return { ok: true, text: source, sha: '' };
  const edits: { start: number; end: number; text: string }[] = [];
  const comments: { start: number; end: number }[] = [];
  const tokens: Token[] = [];
  for (const token of tokenizer(source, {
    ecmaVersion: 2023,
    locations: true,
    onComment: (_block, _text, start, end) => comments.push({ start, end }),
  })) {
    tokens.push(token);
  }
  for (const comment of comments) edits.push({ ...comment, text: blank(source.slice(comment.start, comment.end)) });
  for (const token of tokens) {
    const text = source.slice(token.start, token.end);
    SENSITIVE.lastIndex = 0;
    const found = SENSITIVE.exec(text);
    if (!found) continue;
    const kind = token.type.label;
    if (kind === 'string' || kind === 'template')
      edits.push({ start: token.start, end: token.end, text: escapeSensitive(text) });
    else {
      const where = token.loc!.start;
      return fail(`${describe(found[0])} is not available in factorly scripts`, where.line, where.column + 1);
    }
  }
  let uncommented = source;
  for (const comment of comments)
    uncommented =
      uncommented.slice(0, comment.start) +
      blank(source.slice(comment.start, comment.end)) +
      uncommented.slice(comment.end);
  const joined = joinedSequence(uncommented, tokens);
  if (joined) return joined;
  edits.sort((a, b) => b.start - a.start);
  let text = source;
  for (const edit of edits) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return { ok: true, text, sha: '' };
}

/** `import (x)`, `eval (x)`, `a-->b`: sequences spread over several tokens outside literals and comments. */
function joinedSequence(source: string, tokens: Token[]): PreparedSource | undefined {
  for (let i = 0; i + 1 < tokens.length; i += 1) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    const name =
      a.type.label === 'import'
        ? 'import'
        : a.type.label === 'name' && (a as Token & { value: unknown }).value === 'eval'
          ? 'eval'
          : undefined;
    if (name && b.type.label === '(')
      return fail(`${name}() is not available in factorly scripts`, a.loc!.start.line, a.loc!.start.column + 1);
    if (LITERALS.has(a.type.label) || LITERALS.has(b.type.label)) continue;
    const between = source.slice(a.start, b.end);
    if (/<!--|-->/.test(between.replace(/\s+/g, '')))
      return fail('HTML-like comments (<!-- and -->) are not allowed', a.loc!.start.line, a.loc!.start.column + 1);
  }
  return undefined;
}

function escapeSensitive(text: string): string {
  return text
    .replace(/(import\s*)\(/g, '$1\\u0028')
    .replace(/(\beval\s*)\(/g, '$1\\u0028')
    .replace(/<!--/g, '\\u003c!--')
    .replace(/-->/g, '--\\u003e');
}

/** Same length and same line breaks, so locations after the comment do not move. */
function blank(comment: string): string {
  return comment.replace(/[^\n\r]/g, ' ');
}

function describe(sequence: string): string {
  if (sequence.startsWith('import')) return 'import()';
  if (sequence.startsWith('eval')) return 'eval()';
  return 'an HTML-like comment';
}

function declaresRun(program: Node): boolean {
  const body = (
    program as unknown as {
      body: { type: string; id?: { name: string } | null; declarations?: { id: { name?: string } }[] }[];
    }
  ).body;
  return body.some(
    (node) =>
      (node.type === 'FunctionDeclaration' && node.id?.name === 'run') ||
      (node.type === 'VariableDeclaration' && node.declarations!.some((d) => d.id.name === 'run')),
  );
}

function fromAcorn(error: unknown): PreparedSource {
  const loc = (error as { loc?: { line: number; column: number } }).loc;
  const message = error instanceof Error ? error.message.replace(/\s*\(\d+:\d+\)$/, '') : String(error);
  if (!loc) return fail(message, 1, 1);
  return fail(message, loc.line, loc.column + 1);
}

function fail(message: string, line: number, column: number): PreparedSource {
  return { ok: false, diagnostics: [{ message, line, column }] };
}

/** `message (line 3, column 7)`, the form users see in `script failed to compile: …`. */
export function formatDiagnostic(diagnostic: SourceDiagnostic): string {
  return `${diagnostic.message} (line ${diagnostic.line}, column ${diagnostic.column})`;
}
