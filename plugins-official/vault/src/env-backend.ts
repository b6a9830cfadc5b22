import type { SecretBackend } from 'factorly';

/**
 * `{{env:NAME}}` in provider-side templates (the config; in an agent's params only where a parameter's
 * `hydrate_vault_refs` lists it): the variable from factorly's own environment. Read-only; unset is
 * "not found", so `|default` applies.
 */
export class EnvBackend implements SecretBackend {
  readonly name = 'env';
  readonly readOnly = true;
  /** Reading the environment costs nothing, so a script's call tree reads it ahead. */
  readonly prefetch = true;

  async resolve(key: string): Promise<string | undefined> {
    return process.env[key];
  }
}
