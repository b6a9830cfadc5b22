import { Flags } from '@oclif/core';
import type { VaultAccessed } from '../events/catalog.js';
import { FactorlyError } from '../base/errors.js';
import type { SecretBackend, SecretBackendAccess } from '../contracts/extensions.js';
import type { Kernel } from '../kernel/kernel.js';
import { FactorlyCommand } from './base-command.js';

/**
 * Shared by `factorly vault get|set|list|delete`: finds the backend through the kernel's
 * `SecretBackend` extension point (the vault plugin provides `vault`), and records each operation
 * as a `vault.accessed` event carrying the key, never the value. A failed operation (wrong
 * password, damaged file) records nothing, so it changes nothing on disk.
 */
export abstract class VaultCommand extends FactorlyCommand {
  static vaultFlags = {
    global: Flags.boolean({
      description: 'Use the global vault (~/.config/factorly/vault.enc) instead of the project one.',
    }),
    json: Flags.boolean({ description: 'Print the result as one JSON object (a list holds key names, never values).' }),
  };

  static backendFlag = {
    backend: Flags.string({
      description: 'Read from a vault_backends entry (read-only) instead of the local vault.',
      default: 'vault',
    }),
  };

  static writableBackendFlag = {
    backend: Flags.string({
      description: 'Write to another writable secret backend (one a plugin adds) instead of the local vault.',
      default: 'vault',
    }),
  };

  protected async backend(
    configPath: string | undefined,
    name: string,
    need: keyof SecretBackend,
  ): Promise<{ kernel: Kernel; backend: SecretBackend }> {
    // Managing secrets must not start upstream servers, which may need the very secret being set.
    const kernel = await this.kernel(configPath, { expandTools: false });
    const backend = kernel.backends.get(name);
    if (!backend) {
      const known = kernel.backends.keys().join(', ') || 'none';
      throw new FactorlyError(
        'USAGE',
        `unknown vault backend "${name}" (installed: ${known}); check vault_backends in your config`,
      );
    }
    if (typeof backend[need] !== 'function') {
      const message = backend.readOnly
        ? `backend "${name}" is read-only: manage its secrets with its own tool`
        : `backend "${name}" does not support this operation`;
      throw new FactorlyError('USAGE', message);
    }
    return { kernel, backend };
  }

  /** Where an operation happened, for a person: `the project vault`, or `backend "op" (global)`. */
  protected placeOf(backend: string, tier: string): string {
    return backend === 'vault' ? `the ${tier} vault` : `backend "${backend}" (${tier})`;
  }

  protected access(flags: { global?: boolean }): SecretBackendAccess {
    return flags.global ? { tier: 'global' } : {};
  }

  protected async record(kernel: Kernel, data: VaultAccessed): Promise<void> {
    await kernel.log().append([{ type: 'vault.accessed', data }]);
  }
}
