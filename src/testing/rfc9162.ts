import { createHash } from 'node:crypto';

/**
 * An RFC 9162 verifier written from the RFC's text alone (§2.1.3.2 and §2.1.4.2, step by step),
 * so the product's tree and proof code is checked against something that shares none of it.
 */

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const digest = createHash('sha256');
  for (const part of parts) digest.update(part);
  return digest.digest();
};

export const rfcLeafHash = (leaf: Uint8Array): Buffer => sha256(Buffer.from([0x00]), leaf);
const rfcNodeHash = (left: Uint8Array, right: Uint8Array): Buffer => sha256(Buffer.from([0x01]), left, right);

/** MTH(D[n]) of §2.1.1, by its recursive definition, over leaf *inputs*. */
export function rfcRoot(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return rfcLeafHash(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return rfcNodeHash(rfcRoot(leaves.slice(0, k)), rfcRoot(leaves.slice(k)));
}

/** §2.1.3.2: verifying an inclusion proof. `hash` is the leaf hash. */
export function rfcVerifyInclusion(
  leafIndex: number,
  treeSize: number,
  hash: Buffer,
  inclusionPath: readonly Buffer[],
  root: Buffer,
): boolean {
  // Every hash the RFC passes around is a SHA-256 output (HASH_SIZE = 32 bytes for SHA-256).
  if (hash.length !== 32 || root.length !== 32) return false;
  // 1. Compare leaf_index against tree_size. If leaf_index is greater than or equal to tree_size, fail.
  if (leafIndex >= treeSize) return false;
  // 2. Set fn to leaf_index and sn to tree_size - 1.
  let fn = BigInt(leafIndex);
  let sn = BigInt(treeSize - 1);
  // 3. Set r to hash.
  let r = hash;
  // 4. For each value p in the inclusion_path array:
  for (const p of inclusionPath) {
    // a. If sn is 0, then stop the iteration and fail the proof verification.
    if (sn === 0n) return false;
    // b. If LSB(fn) is set, or if fn is equal to sn, then:
    if ((fn & 1n) === 1n || fn === sn) {
      // 1. Set r to HASH(0x01 || p || r).
      r = rfcNodeHash(p, r);
      // 2. If LSB(fn) is not set, then right-shift both fn and sn equally until either LSB(fn) is set or fn is 0.
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      // Otherwise: Set r to HASH(0x01 || r || p).
      r = rfcNodeHash(r, p);
    }
    // c. Finally, right-shift both fn and sn one time.
    fn >>= 1n;
    sn >>= 1n;
  }
  // 5. Compare sn to 0. Compare r against the root. If sn is equal to 0 and r and the root are equal, the inclusion is proven.
  return sn === 0n && r.equals(root);
}

/** §2.1.4.2: verifying consistency between two tree heads (first < second; equal sizes need equal roots). */
export function rfcVerifyConsistency(
  first: number,
  second: number,
  firstHash: Buffer,
  secondHash: Buffer,
  consistencyPath: readonly Buffer[],
): boolean {
  // The RFC's proofs are for 0 < first < second; a tree is consistent with itself when the heads match.
  if (first <= 0 || first > second) return false;
  if (first === second) return consistencyPath.length === 0 && firstHash.equals(secondHash);
  // 1. If consistency_path is an empty array, stop and fail the proof verification.
  if (consistencyPath.length === 0) return false;
  // 2. If first is an exact power of 2, then prepend first_hash to the consistency_path array.
  const path = (first & (first - 1)) === 0 ? [firstHash, ...consistencyPath] : [...consistencyPath];
  // 3. Set fn to first - 1 and sn to second - 1.
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  // 4. If LSB(fn) is set, then right-shift both fn and sn equally until LSB(fn) is not set.
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  // 5. Set both fr and sr to the first value in the consistency_path array.
  let fr = path[0]!;
  let sr = path[0]!;
  // 6. For each subsequent value c in the consistency_path array:
  for (const c of path.slice(1)) {
    // a. If sn is 0, then stop the iteration and fail the proof verification.
    if (sn === 0n) return false;
    // b. If LSB(fn) is set, or if fn is equal to sn, then:
    if ((fn & 1n) === 1n || fn === sn) {
      // 1. Set fr to HASH(0x01 || c || fr). 2. Set sr to HASH(0x01 || c || sr).
      fr = rfcNodeHash(c, fr);
      sr = rfcNodeHash(c, sr);
      // 3. If LSB(fn) is not set, then right-shift both fn and sn equally until either LSB(fn) is set or fn is 0.
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      // Otherwise: Set sr to HASH(0x01 || sr || c).
      sr = rfcNodeHash(sr, c);
    }
    // c. Finally, right-shift both fn and sn one time.
    fn >>= 1n;
    sn >>= 1n;
  }
  // 7. Verify that fr equals first_hash, sr equals second_hash, and sn is 0.
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0n;
}
