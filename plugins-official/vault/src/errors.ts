/**
 * Errors the vault raises. They carry factorly's error brand (the SDK's `FactorlyError.isInstance`
 * recognises them) without a runtime import of factorly, so the CLI prints the message alone.
 */
export type VaultErrorCode =
  | 'VAULT_LOCKED'
  | 'VAULT_WRONG_PASSWORD'
  | 'VAULT_CORRUPT'
  | 'VAULT_UNSUPPORTED'
  | 'VAULT_KEY_FILE'
  | 'VAULT_BUSY'
  | 'VAULT_BACKEND'
  | 'SECRET_NOT_FOUND'
  | 'CONFIG_INVALID'
  | 'USAGE';

const BRAND: unique symbol = Symbol.for('factorly:error');

export class VaultError extends Error {
  readonly [BRAND] = true;
  readonly exitCode = 1;

  constructor(
    readonly code: VaultErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VaultError';
  }
}
