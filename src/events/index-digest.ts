import { randomInt } from 'node:crypto';

/**
 * An order-independent digest of (key, seq) pairs: two sums of keyed 32-bit mixes. The events
 * side and the index side are summed separately, each in one sequential pass, and compared: equal
 * sums mean the index holds exactly the entries the events call for. The seeds are drawn per run,
 * so no one can shape an index to match without knowing them. (A mismatch is then looked up entry
 * by entry, to name it.)
 */
export type Seeds = [number, number];
export type Digest = [number, number];

export function newSeeds(): Seeds {
  return [randomInt(2 ** 31), randomInt(2 ** 31)];
}

export function emptyDigest(): Digest {
  return [0, 0];
}

export function addEntry(digest: Digest, seeds: Seeds, key: string, seq: number): void {
  digest[0] = (digest[0] + mix(key, seq, seeds[0])) >>> 0;
  digest[1] = (digest[1] + mix(key, seq, seeds[1] ^ 0x5bd1e995)) >>> 0;
}

export function addDigest(into: Digest, other: Digest): void {
  into[0] = (into[0] + other[0]) >>> 0;
  into[1] = (into[1] + other[1]) >>> 0;
}

/** FNV-1a over the key from the seed, folded with the seq, then a murmur3 finaliser. */
function mix(key: string, seq: number, seed: number): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= Math.imul(seq, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
