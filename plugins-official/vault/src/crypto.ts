import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Argon2id cost, stored in the vault header so it can be raised later without breaking old files. */
export interface KdfParams {
  /** Passes over memory (t). */
  iterations: number;
  /** Memory in KiB (m). */
  memoryKiB: number;
  /** Lanes (p). */
  parallelism: number;
}

/** t=3, m=64 MiB, p=1: above the minimum the issue sets (t≥2, m≥64 MiB), unlocking in well under a second. */
export const DEFAULT_KDF: KdfParams = { iterations: 3, memoryKiB: 64 * 1024, parallelism: 1 };
/** Files asking for less are refused on write (re-keyed at the default) and files asking for absurd cost are refused on read. */
export const MIN_KDF: KdfParams = { iterations: 2, memoryKiB: 64 * 1024, parallelism: 1 };
export const MAX_KDF: KdfParams = { iterations: 64, memoryKiB: 4 * 1024 * 1024, parallelism: 16 };

const KEY_BYTES = 32;
export const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Argon2id(password, salt) → 32-byte master key. */
export async function deriveMasterKey(password: Buffer, salt: Buffer, kdf: KdfParams): Promise<Buffer> {
  // Loaded on use: a native module most processes (a call without secrets) never need.
  const { hashRaw } = await import('@node-rs/argon2');
  const key = await hashRaw(password, {
    algorithm: 2, // Argon2id
    salt,
    timeCost: kdf.iterations,
    memoryCost: kdf.memoryKiB,
    parallelism: kdf.parallelism,
    outputLen: KEY_BYTES,
  });
  return Buffer.from(key);
}

/** A sub-key for one purpose (`info`), so the master key itself never encrypts anything. */
export function subKey(master: Buffer, salt: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, salt, info, KEY_BYTES));
}

/** A fresh random nonce: every write seals with a new one. */
export function freshNonce(): Buffer {
  return randomBytes(NONCE_BYTES);
}

/** AES-256-GCM; returns ciphertext ‖ tag. Callers pass a fresh nonce per write. */
export function seal(key: Buffer, nonce: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** Opens what `seal` produced; undefined when the key, nonce, AAD or ciphertext do not match. */
export function open(key: Buffer, nonce: Buffer, sealed: Buffer, aad: Buffer): Buffer | undefined {
  if (sealed.length < TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

export function weakerThan(kdf: KdfParams, floor: KdfParams): boolean {
  return kdf.iterations < floor.iterations || kdf.memoryKiB < floor.memoryKiB || kdf.parallelism < floor.parallelism;
}
