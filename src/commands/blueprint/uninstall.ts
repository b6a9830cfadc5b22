import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { uninstallBlueprint } from '../../cli/blueprints/install.js';

export default class BlueprintUninstall extends FactorlyCommand {
  static summary = 'Remove an installed blueprint (its vault keys are kept).';
  static args = { name: Args.string({ description: 'The installed blueprint.', required: true }) };
  static flags = { json: Flags.boolean({ description: 'Print the result as JSON.' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(BlueprintUninstall);
    const kernel = await this.kernel(flags.config, { expandTools: false });
    const removed = await uninstallBlueprint(kernel, args.name);
    if (flags.json) {
      this.writeJson({
        name: removed.name,
        file: removed.file,
        tools: removed.tools.map((t) => t.name),
        keptKeys: removed.vaultKeys,
      });
      return;
    }
    this.log(`Uninstalled ${removed.name} (removed ${removed.file}; ${removed.tools.length} tool(s) gone).`);
    if (removed.vaultKeys.length > 0)
      this.log(`Vault keys kept: ${removed.vaultKeys.join(', ')} (factorly vault delete <KEY> removes one).`);
  }
}
