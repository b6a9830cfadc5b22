import { createHash } from 'node:crypto';
import { MAX_KDF, MIN_KDF, NONCE_BYTES, type KdfParams } from './crypto.js';
import { FactorlyError } from '@factorly/error-kit';

/**
 * The vault file, version 1 (all integers big-endian):
 *
 *   0  magic "FCTLYVLT"        8   | 19 master salt           16
 *   8  format version (1)      1   | 35 password verifier      32
 *   9  KDF id (1 = Argon2id)   1   | 67 index nonce            12
 *  10  t (iterations)          4   | 79 sealed index (AES-256-GCM, AAD = bytes 0..78)
 *  14  m (KiB)                 4   | end-32  sha256 of everything before it
 *  18  p (lanes)               1
 *
 * The header is authenticated as AAD, so raising the KDF cost later cannot be forged into a lower
 * one. The verifier tells a wrong password apart from a damaged file; the trailing checksum tells
 * accidental damage apart from tampering that kept the checksum right (then GCM refuses the index).
 */
export const MAGIC = Buffer.from('FCTLYVLT', 'ascii');
export const FORMAT_VERSION = 1;
const KDF_ARGON2ID = 1;
export const SALT_BYTES = 16;
export const VERIFIER_BYTES = 32;
const HEADER_BYTES = 79;
const CHECKSUM_BYTES = 32;

export interface VaultHeader {
  kdf: KdfParams;
  salt: Buffer;
  verifier: Buffer;
  nonce: Buffer;
}

export interface ParsedVault {
  header: VaultHeader;
  /** Bytes 0..78: the AAD of the sealed index. */
  aad: Buffer;
  sealedIndex: Buffer;
}

export function encodeVault(header: VaultHeader, sealIndex: (aad: Buffer) => Buffer): Buffer {
  const head = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(head, 0);
  head.writeUInt8(FORMAT_VERSION, 8);
  head.writeUInt8(KDF_ARGON2ID, 9);
  head.writeUInt32BE(header.kdf.iterations, 10);
  head.writeUInt32BE(header.kdf.memoryKiB, 14);
  head.writeUInt8(header.kdf.parallelism, 18);
  header.salt.copy(head, 19);
  header.verifier.copy(head, 35);
  header.nonce.copy(head, 67);
  const body = Buffer.concat([head, sealIndex(head)]);
  return Buffer.concat([body, sha256(body)]);
}

/** Parses and checks everything that can be checked without the password. */
export function decodeVault(bytes: Buffer, shown: string): ParsedVault {
  if (bytes.length < MAGIC.length || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new FactorlyError(
      'VAULT_CORRUPT',
      `${shown} is not a factorly vault file (corrupt or overwritten); restore it from a backup or remove it`,
    );
  }
  const version = bytes.length > 8 ? bytes.readUInt8(8) : 0;
  if (version !== FORMAT_VERSION) {
    throw new FactorlyError(
      'VAULT_UNSUPPORTED',
      `${shown} has vault format version ${version}; this factorly reads version ${FORMAT_VERSION} (upgrade factorly to open it)`,
    );
  }
  if (bytes.length < HEADER_BYTES + 16 + CHECKSUM_BYTES) {
    throw new FactorlyError(
      'VAULT_CORRUPT',
      `${shown} is corrupt (truncated to ${bytes.length} bytes); restore it from a backup`,
    );
  }
  const body = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
  if (!sha256(body).equals(bytes.subarray(bytes.length - CHECKSUM_BYTES))) {
    throw new FactorlyError(
      'VAULT_CORRUPT',
      `${shown} is corrupt or was modified (checksum mismatch); restore it from a backup`,
    );
  }
  const kdfId = bytes.readUInt8(9);
  const kdf: KdfParams = {
    iterations: bytes.readUInt32BE(10),
    memoryKiB: bytes.readUInt32BE(14),
    parallelism: bytes.readUInt8(18),
  };
  if (kdfId !== KDF_ARGON2ID || !withinBounds(kdf)) {
    throw new FactorlyError(
      'VAULT_UNSUPPORTED',
      `${shown} asks for an unsupported key derivation (id ${kdfId}, t=${kdf.iterations}, m=${kdf.memoryKiB} KiB, p=${kdf.parallelism})`,
    );
  }
  return {
    header: {
      kdf,
      salt: Buffer.from(bytes.subarray(19, 35)),
      verifier: Buffer.from(bytes.subarray(35, 67)),
      nonce: Buffer.from(bytes.subarray(67, 67 + NONCE_BYTES)),
    },
    aad: Buffer.from(bytes.subarray(0, HEADER_BYTES)),
    sealedIndex: Buffer.from(body.subarray(HEADER_BYTES)),
  };
}

function withinBounds(kdf: KdfParams): boolean {
  return (
    kdf.iterations >= 1 &&
    kdf.iterations <= MAX_KDF.iterations &&
    kdf.memoryKiB >= 8 * kdf.parallelism &&
    kdf.memoryKiB <= MAX_KDF.memoryKiB &&
    kdf.parallelism >= MIN_KDF.parallelism &&
    kdf.parallelism <= MAX_KDF.parallelism
  );
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
