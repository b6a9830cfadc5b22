import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { summaryLines } from '../../cli/blueprints/output.js';
import { describeBlueprint } from '../../cli/blueprints/install.js';

export default class BlueprintShow extends FactorlyCommand {
  static summary =
    'Show a blueprint (installed, else bundled): its tools and parameters, hosts, vault keys and auth guide.';
  static args = { name: Args.string({ description: 'Blueprint name.', required: true }) };
  static flags = { json: Flags.boolean({ description: 'Print JSON.' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(BlueprintShow);
    const kernel = await this.kernel(flags.config, { expandTools: false });
    const blueprint = await describeBlueprint(kernel, args.name);
    if (flags.json) this.writeJson(blueprint);
    else this.log(summaryLines(blueprint).join('\n'));
  }
}
