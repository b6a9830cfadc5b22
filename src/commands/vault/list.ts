import { VaultCommand } from '../../cli/vault-command.js';
import { printableLine } from '../../base/printable.js';

export default class VaultList extends VaultCommand {
  static summary = 'List the key names in a vault (never the values).';
  static examples = ['<%= config.bin %> vault list', '<%= config.bin %> vault list --global'];
  static flags = { ...VaultCommand.vaultFlags, ...VaultCommand.backendFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(VaultList);
    const { kernel, backend } = await this.backend(flags.config, flags.backend, 'list');
    const { tier, keys } = await backend.list!(this.access(flags));
    await this.record(kernel, { op: 'list', tier });
    if (flags.json) this.writeJson({ tier, keys });
    else for (const key of keys) this.log(printableLine(key));
  }
}
