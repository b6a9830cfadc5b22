import { FactorlyError } from '../base/errors.js';
import type { Token } from '../base/token.js';
import type { Checkpointed } from '../kernel/registries.js';

/** A token a plugin (or the host running the kernel) provides, with the plugin it belongs to. */
export interface ProvidedToken {
  token: Token<unknown>;
  /** `<owner>.<name>`, the token's id. */
  id: string;
  value: unknown;
  owner: string;
}

/** The id a token was made with (`createToken('shadow.policies')` → `shadow.policies`). */
export function tokenId(token: Token<unknown>): string {
  return (token.description ?? '').replace(/^factorly:/, '');
}

/**
 * The tokens plugins provide (`registrar.provide`), so a contract between two plugins lives with the
 * plugin that defines it. A plugin provides only tokens named after itself (`<plugin-id>.<name>`),
 * each once; a plugin that fails to load withdraws what it provided.
 */
export class ProvidedTokens {
  private readonly entries = new Map<symbol, ProvidedToken>();

  provide(owner: string, token: Token<unknown>, value: unknown): void {
    const id = tokenId(token);
    if (typeof token !== 'symbol' || !id.startsWith(`${owner}.`)) {
      throw new FactorlyError(
        'PLUGIN_INVALID',
        `plugin "${owner}" provides token "${id || String(token)}": a plugin's tokens are named "${owner}.<name>"`,
      );
    }
    const existing = this.entries.get(token);
    if (existing)
      throw new FactorlyError(
        'EXTENSION_CONFLICT',
        `token "${id}" is provided twice: by "${existing.owner}" and by "${owner}"`,
      );
    this.entries.set(token, { token, id, value, owner });
  }

  has(token: Token<unknown>): boolean {
    return this.entries.has(token);
  }

  get(token: Token<unknown>): unknown {
    return this.entries.get(token)?.value;
  }

  /** A failed plugin's tokens are no longer there for the plugins that initialise after it. */
  withdraw(owner: string): void {
    for (const [token, entry] of this.entries) if (entry.owner === owner) this.entries.delete(token);
  }

  list(): ProvidedToken[] {
    return [...this.entries.values()];
  }

  /** The provided values that are extension points (plugin-made registries): a failed plugin's contributions to them are rolled back too. */
  checkpointed(): Checkpointed[] {
    return this.list()
      .map((entry) => entry.value)
      .filter((value): value is Checkpointed => typeof (value as Checkpointed | null)?.checkpoint === 'function');
  }
}
