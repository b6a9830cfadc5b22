import { printableText } from '../../../base/printable.js';
import { PinsCommand } from '../../../cli/pins-command.js';

export default class ToolsPinsDiff extends PinsCommand {
  static summary = "Show how a held tool's listed definition differs from its pin (a unified diff).";
  static examples = ['<%= config.bin %> tools pins diff github.create_issue'];
  static args = { ...PinsCommand.toolArg };
  static flags = { ...PinsCommand.digestFlag, ...PinsCommand.jsonFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ToolsPinsDiff);
    const diff = await (await this.pins(flags.config)).diff(args.tool, flags.digest);
    if (flags.json) this.writeJson(diff);
    else process.stdout.write(printableText(diff.diff));
  }
}
