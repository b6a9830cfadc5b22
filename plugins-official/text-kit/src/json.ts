import { configure } from 'safe-stable-stringify';

/**
 * Canonical JSON: keys sorted by UTF-16 code units, no whitespace, numbers and strings as
 * JSON.stringify writes them — the same text as RFC 8785 for the values events hold, so any
 * implementation can re-derive a hash. `strict` refuses what JSON cannot represent (NaN,
 * functions, cycles) instead of hashing something else.
 */
const stringify = configure({ deterministic: true, strict: true, bigint: false, circularValue: Error });

export function canonicalJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}

/**
 * JSON `text` with each secret value in it (as JSON escapes it) written as its `{{reference}}`
 * instead, so what is recorded names a secret and never holds it. `values` maps a reference
 * (`vault:KEY`) to its value; values shorter than 4 characters are left alone.
 */
export function withSecretReferences(text: string, values: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [reference, value] of values)
    if (value.length >= 4) out = out.split(JSON.stringify(value).slice(1, -1)).join(`{{${reference}}}`);
  return out;
}
