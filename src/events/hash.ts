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
  return sha256Hex(envelope.prevHash + canonicalJson(withoutHash(envelope)));
}

function withoutHash(envelope: Omit<Recorded, 'hash'> & { hash?: string }): Omit<Recorded, 'hash'> {
  const { hash: _ignored, ...rest } = envelope;
  return rest;
}
