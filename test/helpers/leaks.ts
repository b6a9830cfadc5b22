import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every form a leaked secret could take in text: what the canary searches for. */
export function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set([
    secret,
    bytes.toString('base64'),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    encodeURIComponent(secret),
    encodeURIComponent(encodeURIComponent(secret)),
    base32(bytes),
    base32(bytes).replace(/=+$/, '').toLowerCase(),
    new URLSearchParams({ v: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(JSON.stringify(secret)).slice(1, -1),
  ]);
  return [...forms];
}

/** RFC 4648 base32 (A–Z, 2–7, `=` padding), which Node does not ship. */
export function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

/** The forms found in `text` (empty when clean). */
export function leaksIn(text: string | Buffer, secret: string): string[] {
  const haystack = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  return leakForms(secret).filter((form) => haystack.includes(Buffer.from(form, 'utf8')));
}

/** Files under `dir` (recursively) holding any form of `secret`, with the forms found. */
export function leaksUnder(dir: string, secret: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...leaksUnder(path, secret));
    else for (const form of leaksIn(readFileSync(path), secret)) found.push(`${path}: ${form}`);
  }
  return found;
}

/** A secret with the characters encoders treat specially (JSON, URL, base64): for CLI tools. */
export function awkwardSecret(): string {
  return `cnry-${randomBytes(12).toString('base64')}/"é+ ${randomBytes(4).toString('hex')}`;
}
