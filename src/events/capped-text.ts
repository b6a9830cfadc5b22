import { createHash } from 'node:crypto';
import type { CallParamsCapped, Params, StoredText } from '../events/catalog.js';
import { truncateUtf8 } from '../base/utf8.js';

/** How much of each value the log keeps (`log.max_param_bytes`, `log.max_output_bytes`): 64 KiB each by default. */
export interface LogBounds {
  maxParamBytes: number;
  maxOutputBytes: number;
}

export const DEFAULT_LOG_BOUNDS: LogBounds = { maxParamBytes: 64 * 1024, maxOutputBytes: 64 * 1024 };

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A call's output as the log keeps it: a prefix of at most `cap` bytes, with the size and digest of the whole. */
export function storedText(text: string, cap = DEFAULT_LOG_BOUNDS.maxOutputBytes): StoredText {
  const bytes = Buffer.byteLength(text, 'utf8');
  const kept = truncateUtf8(text, cap);
  return { text: kept, bytes, sha256: sha256(text), truncated: kept.length < text.length };
}

/** A text field of an event (an error, diagnostics) cut at `cap` bytes, with a marker naming the size and digest of the whole. */
export function cappedText(text: string | undefined, cap: number): string | undefined {
  if (text === undefined || Buffer.byteLength(text, 'utf8') <= cap) return text;
  return `${truncateUtf8(text, cap)}\n… capped in the log: ${Buffer.byteLength(text, 'utf8')} bytes, sha256 ${sha256(text)}`;
}

export type CappedInfo = CallParamsCapped['params'];

/**
 * Params as the log keeps them: when their JSON is over `cap` bytes, the biggest values are replaced,
 * one by one, by a prefix of their text (a value that is not a string: of its JSON) until the whole
 * fits. `capped` gives the size and digest of each replaced value's full text.
 */
export function capParams(params: Params, cap: number): { params: Params; capped: Map<string, CappedInfo[string]> } {
  // Maps, not objects, while working: a param may be called `__proto__` or `constructor`.
  const capped = new Map<string, CappedInfo[string]>();
  if (jsonBytes(params) <= cap) return { params, capped };
  const out = new Map(Object.entries(params));
  const total = (): number => jsonBytes(Object.fromEntries(out));
  const sizes = new Map([...out].map(([name, value]) => [name, jsonBytes(value)]));
  const biggestFirst = [...sizes.keys()].sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  for (const name of biggestFirst) {
    const over = total() - cap;
    if (over <= 0) break;
    const value = params[name];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    capped.set(name, { bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256(text) });
    out.set(
      name,
      fitted(text, Buffer.byteLength(text, 'utf8') - over, (prefix) => {
        out.set(name, prefix);
        return total() <= cap;
      }),
    );
  }
  return { params: Object.fromEntries(out), capped };
}

/** The longest prefix of `text` (starting at `guess` bytes) that `fits`: JSON escapes make a prefix take more room than its bytes. */
function fitted(text: string, guess: number, fits: (prefix: string) => boolean): string {
  let size = Math.max(0, guess);
  let prefix = truncateUtf8(text, size);
  while (size > 0 && !fits(prefix)) {
    size = Math.floor(size * 0.9) - 16;
    prefix = truncateUtf8(text, Math.max(0, size));
  }
  return size > 0 ? prefix : '';
}

function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');
}
