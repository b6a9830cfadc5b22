import { Args } from '@oclif/core';
import { FactorlyError } from '../../base/errors.js';
import { VaultCommand } from '../../cli/vault-command.js';

export default class VaultGet extends VaultCommand {
  static summary = 'Print a secret (raw, no trailing newline).';
  static description = 'Reads the project vault, then the global one; --global reads only the global vault.';
  static examples = [
    '<%= config.bin %> vault get GITHUB_TOKEN',
    '<%= config.bin %> vault get Private/api-key --backend op',
  ];
  static args = { key: Args.string({ description: 'Key name.', required: true }) };
  static flags = { ...VaultCommand.vaultFlags, ...VaultCommand.backendFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(VaultGet);
    const { kernel, backend } = await this.backend(flags.config, flags.backend, 'read');
    const { tier, value } = await backend.read!(args.key, this.access(flags));
    await this.record(kernel, { op: 'get', key: args.key, tier });
    if (value === undefined) {
      const where =
        flags.backend !== 'vault' ? `backend "${flags.backend}"` : flags.global ? 'the global vault' : 'the vault';
      throw new FactorlyError('SECRET_NOT_FOUND', `secret "${args.key}" not found in ${where}`);
    }
    if (flags.json) this.writeJson({ key: args.key, tier, value });
    else process.stdout.write(value);
  }
}
