import type { KeyedRegistry, SecretBackend } from 'factorly';
import { FactorlyError } from '@factorly/error-kit';
import { parseBundle, parseRecord, type TokenBundle } from './token-bundle.js';

/** Where one login's secrets live: a writable secret backend and the key of its token bundle. */
export interface TokenPlace {
  /** The provider or upstream the login is for (named in messages). */
  name: string;
  backend: string;
  tokenKey: string;
}

/** A stored bundle, or why there is none usable. */
export type StoredTokens = { bundle: TokenBundle } | { missing: true } | { invalid: true };

/**
 * A login's token bundle as one secret (`token_key`) in a writable secret backend (the vault by
 * default), and beside it any record the login keeps (an upstream's registered client). Read from
 * the backend every time: a login made by another process is seen at once.
 */
export class TokenStore {
  constructor(private readonly backends: KeyedRegistry<SecretBackend>) {}

  async read(place: TokenPlace): Promise<StoredTokens> {
    const text = await this.backend(place).resolve(place.tokenKey);
    if (text === undefined) return { missing: true };
    const bundle = parseBundle(text);
    return bundle ? { bundle } : { invalid: true };
  }

  async write(place: TokenPlace, bundle: TokenBundle): Promise<void> {
    await this.writeText(place, place.tokenKey, JSON.stringify(bundle));
  }

  /** Whether a bundle was there to remove. */
  async remove(place: TokenPlace): Promise<boolean> {
    return this.removeKey(place, place.tokenKey);
  }

  /** A JSON record the login keeps under `key` in the same backend; undefined when absent or not JSON. */
  async readRecord(place: TokenPlace, key: string): Promise<Record<string, unknown> | undefined> {
    const text = await this.backend(place).resolve(key);
    return text === undefined ? undefined : parseRecord(text);
  }

  async writeRecord(place: TokenPlace, key: string, record: Record<string, unknown>): Promise<void> {
    await this.writeText(place, key, JSON.stringify(record));
  }

  async removeKey(place: TokenPlace, key: string): Promise<boolean> {
    const backend = this.backend(place);
    if (!backend.remove) throw notWritable(place);
    return (await backend.remove(key)).existed;
  }

  private async writeText(place: TokenPlace, key: string, text: string): Promise<void> {
    const backend = this.backend(place);
    if (!backend.write) throw notWritable(place);
    await backend.write(key, text);
  }

  private backend(place: TokenPlace): SecretBackend {
    const backend = this.backends.get(place.backend);
    if (!backend) {
      throw new FactorlyError(
        'USAGE',
        `OAuth login "${place.name}" keeps its tokens in secret backend "${place.backend}", which is not installed (installed: ${this.backends.keys().join(', ') || 'none'})`,
      );
    }
    return backend;
  }
}

function notWritable(place: TokenPlace): FactorlyError {
  return new FactorlyError(
    'USAGE',
    `OAuth login "${place.name}": secret backend "${place.backend}" is read-only; set token_backend to a writable one (the default, vault)`,
  );
}
