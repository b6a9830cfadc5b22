import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { FactorlyError } from '../base/errors.js';

// A person's answer crossing the event log from another process (the web UI answering a question a
// `factorly call` asked) is sealed to a key only the asking process holds, for the question's
// lifetime: the log keeps the answer once, scrubbed, in `ask.resolved`, never in the clear on its way.
// ECIES over X25519: an ephemeral key agreement, HKDF-SHA256, AES-256-GCM.

const INFO = 'factorly person answer v1';

/** The asking side: the public key to hand out (`QuestionPrompt.replyKey`) and the opener of what was sealed to it. */
export interface ReplyKey {
  readonly publicKey: string;
  open(sealed: string): string;
}

export function replyKey(): ReplyKey {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey: derOf(publicKey).toString('base64url'),
    open(sealed) {
      const parts = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
      if (parts.length !== 4) throw new FactorlyError('NO_ANSWER', 'a sealed answer has four parts');
      const [ephemeral, iv, tag, data] = parts;
      try {
        const shared = diffieHellman({ privateKey, publicKey: publicKeyOf(ephemeral) });
        const decipher = createDecipheriv('aes-256-gcm', keyOf(shared, ephemeral), iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new FactorlyError('NO_ANSWER', "a sealed answer could not be opened with this question's key", {
          cause: error,
        });
      }
    },
  };
}

/** Seals `text` to a question's `replyKey`: what a channel answering from another process records. */
export function sealAnswer(replyKeyText: string, text: string): string {
  let recipient: KeyObject;
  try {
    recipient = publicKeyOf(Buffer.from(replyKeyText, 'base64url'));
  } catch (error) {
    throw new FactorlyError('NO_ANSWER', "the question's reply key is not an X25519 public key", { cause: error });
  }
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralDer = derOf(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient });
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(shared, ephemeralDer), iv);
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return [ephemeralDer, iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.');
}

function derOf(key: KeyObject): Buffer {
  return key.export({ type: 'spki', format: 'der' });
}

function publicKeyOf(der: Buffer): KeyObject {
  const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'x25519') throw new FactorlyError('NO_ANSWER', 'not an X25519 key');
  return key;
}

function keyOf(shared: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, salt, INFO, 32));
}
