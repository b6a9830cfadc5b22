import type { SecretBackend } from 'factorly';
import { FactorlyError } from '@factorly/error-kit';
import { isFactorlySecretName } from '@factorly/process-kit';

/**
 * `{{env:NAME}}` in provider-side templates (the config; in an agent's params only where a parameter's
 * `hydrate_vault_refs` lists it): the variable from factorly's own environment. Read-only; unset is
 * "not found", so `|default` applies. factorly's own secret variables (`FACTORLY_VAULT_PASSWORD`,
 * `FACTORLY_HTTP_TOKEN`, any `FACTORLY_*` but its settings) are refused: a reference would hand a tool
 * what its built environment withholds.
 */
export class EnvBackend implements SecretBackend {
  readonly name = 'env';
  readonly readOnly = true;
  /** Reading the environment costs nothing, so a script's call tree reads it ahead. */
  readonly prefetch = true;

  async resolve(key: string): Promise<string | undefined> {
    if (isFactorlySecretName(key))
      throw new FactorlyError(
        'SECRET_WITHHELD',
        `{{env:${key}}}: factorly's own variables (FACTORLY_*) may hold its secrets and never reach a tool`,
      );
    return process.env[key];
  }
}
