import { Args } from '@oclif/core';
import { FactorlyError } from '../../base/errors.js';
import { VaultCommand } from '../../cli/vault-command.js';

export default class VaultDelete extends VaultCommand {
  static summary = 'Delete a secret from the vault.';
  static examples = ['<%= config.bin %> vault delete GITHUB_TOKEN'];
  static args = { key: Args.string({ description: 'Key name.', required: true }) };
  static flags = { ...VaultCommand.vaultFlags, ...VaultCommand.writableBackendFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(VaultDelete);
    const { kernel, backend } = await this.backend(flags.config, flags.backend, 'remove');
    const { tier, existed } = await backend.remove!(args.key, this.access(flags));
    if (!existed)
      throw new FactorlyError(
        'SECRET_NOT_FOUND',
        `secret "${args.key}" not found in ${this.placeOf(flags.backend, tier)}`,
      );
    await this.record(kernel, { op: 'delete', key: args.key, tier });
    if (flags.json) this.writeJson({ op: 'delete', key: args.key, tier });
    else this.log(`Deleted ${args.key} from ${this.placeOf(flags.backend, tier)}`);
  }
}
