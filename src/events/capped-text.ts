import { createHash } from 'node:crypto';
import type { CallParamsCapped, Params, StoredText } from '../events/catalog.js';
import { truncateUtf8 } from '../base/utf8.js';
import { MAX_PARAM_DEPTH, jsonTextAnyDepth, nestsDeeperThan } from '../base/json-depth.js';

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
export type OmittedInfo = NonNullable<CallParamsCapped['omitted']>;

/**
 * Params named in the log at most: past this (or past half the cap in names alone) the remaining
 * params are left out whole and counted once (`omitted`), so neither `call.requested` nor
 * `call.params_capped` grows with the number of keys a caller sends.
 */
export const MAX_NAMED_PARAMS = 256;

/**
 * Params whose values the log can walk: a value nested deeper than `MAX_PARAM_DEPTH` (refused at
 * validation, but still recorded) is replaced by its JSON text, listed in `capped` with its size and
 * digest, so the scrubber, the capping and the hash chain never recurse that deep.
 */
export function shallowParams(params: Params, capped: Map<string, CappedInfo[string]>): Params {
  const deep = Object.keys(params).filter((name) => nestsDeeperThan(params[name], MAX_PARAM_DEPTH));
  if (deep.length === 0) return params;
  const out = new Map(Object.entries(params));
  for (const name of deep) {
    const text = jsonTextAnyDepth(params[name]);
    capped.set(name, { bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256(text) });
    out.set(name, text);
  }
  return Object.fromEntries(out);
}

/** One param while capping: its name's and value's JSON sizes, kept so each step costs only its own value. */
interface Entry {
  name: string;
  value: unknown;
  nameBytes: number;
  valueBytes: number;
}

/**
 * Params as the log keeps them: when their JSON is over `cap` bytes, the biggest values are replaced,
 * one by one, by a prefix of their text (a value that is not a string: of its JSON) until the whole
 * fits. `capped` gives the size and digest of each replaced value's full text. Params past
 * `MAX_NAMED_PARAMS`, or whose names alone would fill half the cap, are left out (`omitted`: how many,
 * and the size and digest of their JSON object). What is cut or left out is scrubbed by `scrub` as
 * one text first, so its size and digest are of what the log may hold. Linear in the params' size:
 * each value's JSON is measured once and the total is kept as values are replaced, never recomputed.
 */
export async function capParams(
  params: Params,
  cap: number,
  scrub: (text: string) => Promise<string> | string = (text) => text,
): Promise<{ params: Params; capped: Map<string, CappedInfo[string]>; omitted?: OmittedInfo }> {
  // Maps, not objects, while working: a param may be called `__proto__` or `constructor`.
  const capped = new Map<string, CappedInfo[string]>();
  if (jsonBytes(params) <= cap) return { params, capped };
  const { named, left } = splitNamed(params, cap);
  const out = new Map(named.map((entry) => [entry.name, entry.value]));
  let total = 2 + named.reduce((sum, entry, i) => sum + entry.nameBytes + 1 + entry.valueBytes + (i > 0 ? 1 : 0), 0);
  for (const entry of [...named].sort((a, b) => b.valueBytes - a.valueBytes)) {
    const over = total - cap;
    if (over <= 0) break;
    // A value of two bytes or less (a digit, `""`) cannot get shorter as a string.
    if (entry.valueBytes <= 2) continue;
    // Scrubbed as one text, as an output is: the log keeps a prefix of this text, never the value.
    const text = await scrub(typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value));
    const textBytes = Buffer.byteLength(text, 'utf8');
    capped.set(entry.name, { bytes: textBytes, sha256: sha256(text) });
    const room = entry.valueBytes - over;
    const prefix = fitted(text, room);
    out.set(entry.name, prefix);
    total += jsonBytes(prefix) - entry.valueBytes;
  }
  const kept = Object.fromEntries(out) as Params;
  if (left.length === 0) return { params: kept, capped };
  return {
    params: kept,
    capped,
    omitted: omittedInfo(await scrub(JSON.stringify(Object.fromEntries(left))), left.length),
  };
}

/** The params the log names (in the order sent), and those it leaves out. */
function splitNamed(params: Params, cap: number): { named: Entry[]; left: [string, unknown][] } {
  const named: Entry[] = [];
  const left: [string, unknown][] = [];
  // Room a named param takes at the least: its name, a colon, an empty string, a comma.
  let nameRoom = 0;
  for (const [name, value] of Object.entries(params)) {
    // Once a name did not fit, none after it is named: the order sent is kept.
    const nameBytes = left.length === 0 && named.length < MAX_NAMED_PARAMS ? jsonBytes(name) : Infinity;
    if (nameRoom + nameBytes + 4 <= cap / 2) {
      nameRoom += nameBytes + 4;
      named.push({ name, value, nameBytes, valueBytes: jsonBytes(value) });
    } else left.push([name, value]);
  }
  return { named, left };
}

function omittedInfo(text: string, count: number): OmittedInfo {
  return { count, bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256(text) };
}

/**
 * A prefix of `text` whose JSON string fits in `room` bytes: JSON escapes make a prefix take more
 * room than its bytes, so a prefix that does not fit is shrunk by the share it is over (a text of
 * backslashes halves at once). The text is cut to `room` once, so each try costs the prefix.
 */
function fitted(text: string, room: number): string {
  let size = Math.max(0, room - 2);
  const head = truncateUtf8(text, size);
  let prefix = head;
  for (let bytes = jsonBytes(prefix); size > 0 && bytes > room; bytes = jsonBytes(prefix)) {
    size = Math.min(size - 1, Math.floor((size * (room - 2)) / (bytes - 2)));
    prefix = truncateUtf8(head, Math.max(0, size));
  }
  return size > 0 ? prefix : '';
}

function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');
}
