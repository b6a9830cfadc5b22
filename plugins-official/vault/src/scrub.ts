/**
 * Finds a secret value in the forms a tool is likely to print it in, and replaces it with
 * `[REDACTED:KEY]`: verbatim, URL-encoded once or twice (any mix of raw, %XX and %25XX, either hex
 * case, `+` for space), JSON-escaped (once or nested: `\"`, `\\`, `\/`, `\n`, `\u00e9`), base64
 * (standard and URL-safe) and base32 (RFC 4648, either case), each also embedded at any byte offset
 * in a longer text of its alphabet (a Basic auth header), and hex (either case).
 *
 * What it cannot find is a value a program transformed in any other way (reversed, split, hashed,
 * encrypted, one character a line): no scrubber can, which is why a tool's output is not a safe
 * place for a secret to begin with.
 */

/** Values shorter than this are not scrubbed: redacting every "C" or "80" would wreck output and hide nothing. */
export const MIN_SCRUB_LENGTH = 4;

const patternCache = new Map<string, RegExp[]>();
const CACHE_LIMIT = 256;

/** Replaces every form of every value; longer values first, so one that contains another is redacted whole. */
export function scrubSecrets(text: string, secrets: ReadonlyMap<string, string>): string {
  const ordered = [...secrets]
    .filter(([, value]) => value.length >= MIN_SCRUB_LENGTH)
    .sort((a, b) => b[1].length - a[1].length);
  let out = text;
  for (const [reference, value] of ordered) {
    const marker = `[REDACTED:${reference.slice(reference.indexOf(':') + 1)}]`;
    for (const pattern of patternsFor(value)) out = out.replace(pattern, () => marker);
  }
  return out;
}

export function patternsFor(value: string): RegExp[] {
  let patterns = patternCache.get(value);
  if (!patterns) {
    patterns = [
      textForms(value),
      ...base64Forms(value),
      ...base32Forms(value),
      new RegExp(Buffer.from(value, 'utf8').toString('hex'), 'gi'),
    ];
    if (patternCache.size >= CACHE_LIMIT) patternCache.delete(patternCache.keys().next().value!);
    patternCache.set(value, patterns);
  }
  return patterns;
}

/** One pattern per character: the character itself, its %XX bytes (or %25XX, encoded twice), or a JSON escape of it. */
function textForms(value: string): RegExp {
  return new RegExp([...value].map((char, i) => charForms(char, i === 0)).join(''), 'g');
}

const JSON_SHORT: Record<string, string> = { '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f' };

/** Backslashes one escape inside a secret may carry: JSON escaped six times over (2^6 - 1 = 63). */
const MAX_ESCAPE_RUN = 64;

/**
 * The first character's escapes match one backslash, never a run: a pattern is tried at every
 * position, and a run there would rescan a long run of backslashes from each position in it,
 * quadratic in the text (a 1 MB run took minutes). The run's other backslashes stay in the text
 * before the marker and carry nothing of the secret. Later characters are only tried right after
 * the ones before them matched, so their runs (bounded all the same) are scanned once.
 */
function charForms(char: string, first: boolean): string {
  const run = (min: 0 | 1) => (first ? (min === 0 ? '\\\\?' : '\\\\') : `\\\\{${min},${MAX_ESCAPE_RUN}}`);
  const forms = [escapeRegExp(char)];
  if (char === '"' || char === '\\' || char === '/') forms[0] = `${run(0)}${escapeRegExp(char)}`;
  if (char === ' ') forms.push('\\+', '%2[bB]');
  const bytes = [...Buffer.from(char, 'utf8')];
  forms.push(bytes.map((byte) => `%${hexDigits(byte, 2)}`).join(''));
  forms.push(bytes.map((byte) => `%25${hexDigits(byte, 2)}`).join(''));
  if (JSON_SHORT[char]) forms.push(`${run(1)}${JSON_SHORT[char]}`);
  // Only a character's first UTF-16 unit can start the match; a second one follows it.
  const units = [...Array(char.length).keys()].map(
    (i) => `${i === 0 ? run(1) : `\\\\{1,${MAX_ESCAPE_RUN}}`}u${hexDigits(char.charCodeAt(i), 4)}`,
  );
  forms.push(units.join(''));
  return `(?:${forms.join('|')})`;
}

/** Hex digits of `n` as a case-insensitive pattern (`%2f` and `%2F` alike). */
function hexDigits(n: number, width: number): string {
  return [...n.toString(16).padStart(width, '0')]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('');
}

/**
 * Base64 of the value starting at each of the three byte offsets a longer text can put it at
 * (`user:secret` in a Basic header shifts it). Only the characters the value alone determines are
 * matched; up to two neighbouring characters and the padding are swallowed with them, since they
 * carry a few bits of the value.
 */
function base64Forms(value: string): RegExp[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((4 * offset) / 3), Math.floor((4 * (offset + bytes.length)) / 3));
    if (core.length >= 6 || offset === 0) forms.add(core);
  }
  const patterns: RegExp[] = [];
  for (const core of forms) {
    patterns.push(new RegExp(`[A-Za-z0-9+/]{0,2}${escapeRegExp(core)}[A-Za-z0-9+/]{0,2}={0,2}`, 'g'));
    const urlSafe = core.replaceAll('+', '-').replaceAll('/', '_');
    patterns.push(new RegExp(`[A-Za-z0-9_-]{0,2}${escapeRegExp(urlSafe)}[A-Za-z0-9_-]{0,2}={0,2}`, 'g'));
  }
  return patterns;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (Node has no encoder for it). */
function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let buffered = 0;
  for (const byte of bytes) {
    buffered = ((buffered << 8) | byte) & 0xfff;
    bits += 8;
    for (; bits >= 5; bits -= 5) out += BASE32[(buffered >>> (bits - 5)) & 31];
  }
  return bits > 0 ? out + BASE32[(buffered << (5 - bits)) & 31] : out;
}

/**
 * Base32 of the value starting at each of the five byte offsets a longer text can put it at, in
 * either case (TOTP seeds and some IDs are written lower-case): as for base64, only the characters
 * the value alone determines, with the one character it shares at each end and the padding.
 */
function base32Forms(value: string): RegExp[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set<string>();
  for (let offset = 0; offset < 5; offset++) {
    const encoded = base32(Buffer.concat([Buffer.alloc(offset), bytes]));
    const core = encoded.slice(Math.ceil((8 * offset) / 5), Math.floor((8 * (offset + bytes.length)) / 5));
    if (core.length >= 6 || offset === 0) forms.add(core);
  }
  return [...forms].map((core) => new RegExp(`[A-Z2-7]?${core}[A-Z2-7]?={0,6}`, 'gi'));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/-]/g, '\\$&');
}
