import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { listTable } from '../../cli/blueprints/output.js';
import { bundledBlueprints, installedBlueprints } from '../../cli/blueprints/install.js';

export default class BlueprintList extends FactorlyCommand {
  static summary = 'List the installed blueprints (--available: the ones factorly ships).';
  static flags = {
    available: Flags.boolean({ description: 'List the bundled blueprints, each marked when installed.' }),
    json: Flags.boolean({ description: 'Print JSON: {installed: [...], bundled: [...]}.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(BlueprintList);
    const kernel = await this.kernel(flags.config, { expandTools: false });
    const width = process.stdout.columns || 100;
    if (flags.json) {
      this.writeJson({ installed: installedBlueprints(kernel), bundled: bundledBlueprints(kernel) });
      return;
    }
    if (flags.available) {
      this.log(listTable(bundledBlueprints(kernel), width, true));
      return;
    }
    const installed = installedBlueprints(kernel);
    if (installed.length === 0)
      this.log('No blueprints installed. See the bundled ones: factorly blueprint list --available');
    else this.log(listTable(installed, width));
  }
}
