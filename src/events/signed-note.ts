import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

/**
 * C2SP signed-note (https://c2sp.org/signed-note) with Ed25519 keys: a text ending in a newline, a
 * blank line, then one line per signature, `— <key name> base64(key ID ‖ signature)`. The key ID is
 * SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ 32-byte public key)[:4]. Keys are written the way the Go note
 * package writes them, so either side can use the other's tools:
 * - verifier key: `<name>+<hex key ID>+<base64(0x01 ‖ public key)>`
 * - signer key:   `PRIVATE+KEY+<name>+<hex key ID>+<base64(0x01 ‖ 32-byte seed)>`
 */

const ED25519 = 0x01;
const EM_DASH = '\u2014';
// PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410), so node:crypto can load it.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export class NoteError extends Error {}

export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  sign(text: Buffer): Buffer;
}

export interface NoteVerifier {
  readonly name: string;
  readonly keyId: number;
  verify(text: Buffer, signature: Buffer): boolean;
}

export function keyIdOf(name: string, publicKey: Buffer): number {
  return createHash('sha256')
    .update(`${name}\n`)
    .update(Buffer.from([ED25519]))
    .update(publicKey)
    .digest()
    .readUInt32BE(0);
}

function checkKeyName(name: string): void {
  if (name === '' || /[\s+]/u.test(name))
    throw new NoteError(`a key name must be non-empty, without spaces or "+": ${JSON.stringify(name)}`);
}

const hex8 = (id: number): string => id.toString(16).padStart(8, '0');

/** A new Ed25519 key named `name`, as a signer key string. */
export function newSignerKey(name: string): string {
  checkKeyName(name);
  const { privateKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
  const publicKey = rawPublicKey(privateKey);
  return `PRIVATE+KEY+${name}+${hex8(keyIdOf(name, publicKey))}+${Buffer.concat([Buffer.from([ED25519]), seed]).toString('base64')}`;
}

function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');
}

/** Splits `<name>+<hex id>+<base64 key>` and checks the ID against the key. */
function parseKey(text: string, what: string): { name: string; keyId: number; material: Buffer } {
  // Names cannot hold "+", base64 can: the key is everything after the second one.
  const [name, id, ...rest] = text.trim().split('+');
  const encoded = rest.join('+');
  if (!name || !/^[0-9a-f]{8}$/.test(id ?? '') || !encoded)
    throw new NoteError(`not a ${what}: expected <name>+<8 hex digits>+<base64>`);
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length !== 33 || bytes[0] !== ED25519 || bytes.toString('base64') !== encoded)
    throw new NoteError(`not a ${what}: only Ed25519 keys (type 0x01, 32 bytes) are supported`);
  return { name, keyId: Number.parseInt(id!, 16), material: bytes.subarray(1) };
}

export function signerFromKey(text: string): NoteSigner & { verifierKey: string } {
  if (!text.trim().startsWith('PRIVATE+KEY+'))
    throw new NoteError('not a signer key: expected PRIVATE+KEY+<name>+<id>+<key>');
  const { name, keyId, material } = parseKey(text.trim().slice('PRIVATE+KEY+'.length), 'signer key');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, material]), format: 'der', type: 'pkcs8' });
  const publicKey = rawPublicKey(privateKey);
  if (keyIdOf(name, publicKey) !== keyId) throw new NoteError('the signer key ID does not match its key');
  const verifierKey = `${name}+${hex8(keyId)}+${Buffer.concat([Buffer.from([ED25519]), publicKey]).toString('base64')}`;
  return { name, keyId, verifierKey, sign: (message) => sign(null, message, privateKey) };
}

export function verifierFromKey(text: string): NoteVerifier {
  const { name, keyId, material } = parseKey(text, 'verifier key');
  checkKeyName(name);
  if (keyIdOf(name, material) !== keyId) throw new NoteError('the verifier key ID does not match its key');
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: material.toString('base64url') },
    format: 'jwk',
  });
  return {
    name,
    keyId,
    verify: (message, signature) => signature.length === 64 && verify(null, message, publicKey, signature),
  };
}

export function signNote(text: string, signer: NoteSigner): string {
  checkText(text);
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(signer.keyId);
  const signature = Buffer.concat([prefix, signer.sign(Buffer.from(text, 'utf8'))]).toString('base64');
  return `${text}\n${EM_DASH} ${signer.name} ${signature}\n`;
}

function checkText(text: string): void {
  if (!text.endsWith('\n')) throw new NoteError('a note text must end with a newline');
  checkControls(text);
}

function checkControls(text: string): void {
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text))
    throw new NoteError('a note must not contain control characters other than newline');
}

export interface OpenedNote {
  text: string;
  /** Names of the given keys whose signatures verified. */
  verifiedBy: string[];
}

/**
 * Checks a signed note against the keys the caller trusts: signatures from other keys are ignored
 * (as the spec requires), a known key whose signature fails rejects the note, and at least one
 * known key must have signed it.
 */
export function openNote(note: string, verifiers: readonly NoteVerifier[]): OpenedNote {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new NoteError('not a signed note: no blank line before the signatures');
  const text = note.slice(0, split + 1);
  checkControls(note);
  const verifiedBy: string[] = [];
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
    if (!match) throw new NoteError(`not a signature line: ${JSON.stringify(line.slice(0, 80))}`);
    const signature = Buffer.from(match[2]!, 'base64');
    if (signature.length < 5) throw new NoteError('a signature is too short to hold a key ID');
    const keyId = signature.readUInt32BE(0);
    const verifier = verifiers.find((v) => v.name === match[1] && v.keyId === keyId);
    if (!verifier) continue;
    if (!verifier.verify(Buffer.from(text, 'utf8'), signature.subarray(4)))
      throw new NoteError(`the signature of ${verifier.name} does not verify`);
    verifiedBy.push(verifier.name);
  }
  if (verifiedBy.length === 0) throw new NoteError('no signature by a known key');
  return { text, verifiedBy };
}
