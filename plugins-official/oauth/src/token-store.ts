import type { KeyedRegistry, SecretBackend } from 'factorly';
import { FactorlyError } from '@factorly/error-kit';
import type { OAuthProviderSpec } from './providers.js';
import { parseBundle, type TokenBundle } from './token-bundle.js';

/** A stored bundle, or why there is none usable. */
export type StoredTokens = { bundle: TokenBundle } | { missing: true } | { invalid: true };

/**
 * The provider's token bundle as one secret (`token_key`) in a writable secret backend (the vault
 * by default). Read from the backend every time: a login made by another process is seen at once.
 */
export class TokenStore {
  constructor(private readonly backends: KeyedRegistry<SecretBackend>) {}

  async read(spec: OAuthProviderSpec): Promise<StoredTokens> {
    const text = await this.backend(spec).resolve(spec.tokenKey);
    if (text === undefined) return { missing: true };
    const bundle = parseBundle(text);
    return bundle ? { bundle } : { invalid: true };
  }

  async write(spec: OAuthProviderSpec, bundle: TokenBundle): Promise<void> {
    const backend = this.backend(spec);
    if (!backend.write) throw notWritable(spec);
    await backend.write(spec.tokenKey, JSON.stringify(bundle));
  }

  /** Whether a bundle was there to remove. */
  async remove(spec: OAuthProviderSpec): Promise<boolean> {
    const backend = this.backend(spec);
    if (!backend.remove) throw notWritable(spec);
    return (await backend.remove(spec.tokenKey)).existed;
  }

  private backend(spec: OAuthProviderSpec): SecretBackend {
    const backend = this.backends.get(spec.backend);
    if (!backend) {
      throw new FactorlyError(
        'USAGE',
        `OAuth provider "${spec.name}" keeps its tokens in secret backend "${spec.backend}", which is not installed (installed: ${this.backends.keys().join(', ') || 'none'})`,
      );
    }
    return backend;
  }
}

function notWritable(spec: OAuthProviderSpec): FactorlyError {
  return new FactorlyError(
    'USAGE',
    `OAuth provider "${spec.name}": secret backend "${spec.backend}" is read-only; set token_backend to a writable one (the default, vault)`,
  );
}
