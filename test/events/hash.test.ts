import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Recorded } from '../../src/events/envelope.js';
import { canonicalJson, hashEnvelope, sealEnvelope } from '../../src/events/hash.js';

describe('canonical JSON', () => {
  it('sorts keys at every depth, drops undefined, and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: null }], c: 'x' }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":1}]},"b":1}',
    );
  });

  it('orders keys by UTF-16 code units and escapes like JSON', () => {
    expect(canonicalJson({ é: 1, Z: 2, a: 3, '\n': 'q"\u2028' })).toBe('{"\\n":"q\\"\u2028","Z":2,"a":3,"é":1}');
    expect(canonicalJson({ n: 1e21, m: 0.1 + 0.2, neg: -0 })).toBe('{"m":0.30000000000000004,"n":1e+21,"neg":0}');
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow();
    expect(() => canonicalJson({ f: () => 1 })).toThrow();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow();
  });
});

describe('sealing an envelope', () => {
  it('writes the canonical JSON of the whole envelope and hashes it as hashEnvelope does, for any data', () => {
    const json = fc.jsonValue().filter((value) => value !== null && typeof value === 'object' && !Array.isArray(value));
    fc.assert(
      fc.property(json, fc.string(), fc.string(), fc.nat(), (data, id, type, seq) => {
        const envelope = {
          seq,
          id,
          type,
          v: 1,
          at: '2026-01-01T00:00:00.000Z',
          data,
          prevHash: 'ab'.repeat(32),
        } as unknown as Omit<Recorded, 'hash'>;
        const { hash, stored } = sealEnvelope(envelope);
        expect(hash).toBe(hashEnvelope(envelope));
        expect(stored).toBe(canonicalJson({ ...envelope, hash }));
      }),
    );
  });
});
