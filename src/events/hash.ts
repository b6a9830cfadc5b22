import { createHash, hash as oneShot } from 'node:crypto';
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
  // The one-shot form: no Hash object per digest (this runs several times per call).
  return oneShot('sha256', input, 'hex');
}

/** The chain hash of an envelope: sha256 of prevHash followed by the canonical envelope without `hash`. */
export function hashEnvelope(envelope: Omit<Recorded, 'hash'>): string {
  return sha256Hex(envelope.prevHash + canonicalJson(withoutHash(envelope)));
}

/**
 * Hashes a new envelope and writes its stored form in one pass: the canonical JSON of the whole
 * envelope (hash included), built around one canonical serialisation of `data`. The envelope's own
 * keys are fixed, so their sorted order (at, data, hash, id, prevHash, seq, type, v) is written out
 * here; the result equals `canonicalJson({ ...envelope, hash })`, and the hash equals `hashEnvelope`.
 */
export function sealEnvelope(envelope: Omit<Recorded, 'hash'>): { hash: string; stored: string } {
  const head = `{"at":${JSON.stringify(envelope.at)},"data":${canonicalJson(envelope.data)}`;
  const tail = `,"id":${JSON.stringify(envelope.id)},"prevHash":${JSON.stringify(envelope.prevHash)},"seq":${envelope.seq},"type":${JSON.stringify(envelope.type)},"v":${envelope.v}}`;
  const hash = sha256Hex(envelope.prevHash + head + tail);
  return { hash, stored: `${head},"hash":"${hash}"${tail}` };
}

function withoutHash(envelope: Omit<Recorded, 'hash'> & { hash?: string }): Omit<Recorded, 'hash'> {
  const { hash: _ignored, ...rest } = envelope;
  return rest;
}
