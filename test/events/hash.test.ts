import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/events/hash.js';

describe('canonical JSON', () => {
  it('sorts keys at every depth, drops undefined, and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: null }], c: 'x' }, u: undefined })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":1}]},"b":1}');
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
