import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Recorded } from './envelope.js';

/** RFC 8785 canonical JSON, so the same envelope hashes the same in every implementation. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be represented as JSON');
  return text;
}

export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}

/** The chain hash of an envelope: sha256 of prevHash followed by the canonical envelope without `hash`. */
export function hashEnvelope(envelope: Omit<Recorded, 'hash'>): string {
  return sha256Hex(envelope.prevHash + canonicalJson(withoutHash(envelope)));
}

function withoutHash(envelope: Omit<Recorded, 'hash'> & { hash?: string }): Omit<Recorded, 'hash'> {
  const { hash: _ignored, ...rest } = envelope;
  return rest;
}
