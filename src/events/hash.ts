import { hash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import type { Recorded } from './envelope.js';

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

export function sha256Hex(input: string | Uint8Array): string {
  // One-shot: a third cheaper than createHash().update().digest() for an event's few hundred bytes.
  return hash('sha256', input, 'hex');
}

/** The chain hash of an envelope: sha256 of prevHash followed by the canonical envelope without `hash`. */
export function hashEnvelope(envelope: Omit<Recorded, 'hash'>): string {
  return sha256Hex(envelope.prevHash + (canonicalEnvelope(envelope) ?? canonicalJson(withoutHash(envelope))));
}

const ENVELOPE_KEYS = new Set(['seq', 'id', 'type', 'v', 'at', 'data', 'prevHash', 'hash']);

/**
 * The canonical text of a well-formed envelope, written field by field in sorted key order (at,
 * data, id, prevHash, seq, type, v) with only `data` going through the generic canonicaliser: the
 * same text as canonicalJson, at a fraction of the cost, for the millions of envelopes verification
 * reads. Anything of another shape gets undefined, and the generic path.
 */
function canonicalEnvelope(envelope: Omit<Recorded, 'hash'> & { hash?: string }): string | undefined {
  const { seq, id, type, v, at, data, prevHash } = envelope;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof at !== 'string' || typeof prevHash !== 'string') return undefined;
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(v) || data === undefined) return undefined;
  let keys = 0;
  for (const key in envelope) {
    if (!ENVELOPE_KEYS.has(key)) return undefined;
    keys += 1;
  }
  if (keys !== ('hash' in envelope ? 8 : 7)) return undefined;
  return `{"at":${JSON.stringify(at)},"data":${canonicalJson(data)},"id":${JSON.stringify(id)},"prevHash":${JSON.stringify(prevHash)},"seq":${seq},"type":${JSON.stringify(type)},"v":${v}}`;
}

function withoutHash(envelope: Omit<Recorded, 'hash'> & { hash?: string }): Omit<Recorded, 'hash'> {
  const { hash: _ignored, ...rest } = envelope;
  return rest;
}
