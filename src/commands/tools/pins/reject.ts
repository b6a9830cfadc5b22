import { PinsCommand } from '../../../cli/pins-command.js';

export default class ToolsPinsReject extends PinsCommand {
  static summary =
    "Reject a held tool's changed definition: the tool stays held until its source lists the pinned one again.";
  static examples = ['<%= config.bin %> tools pins reject github.create_issue'];
  static args = { ...PinsCommand.toolArg };
  static flags = { ...PinsCommand.digestFlag, ...PinsCommand.jsonFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ToolsPinsReject);
    const decision = await (await this.pins(flags.config)).reject(args.tool, { by: 'cli', digest: flags.digest });
    if (flags.json) this.writeJson(decision);
    else this.printDecision(decision, 'Rejected the new definition of');
  }
}
