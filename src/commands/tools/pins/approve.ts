import { PinsCommand } from '../../../cli/pins-command.js';

export default class ToolsPinsApprove extends PinsCommand {
  static summary = "Approve a held tool's changed definition: it is pinned, and the tool is listed and callable again.";
  static examples = ['<%= config.bin %> tools pins approve github.create_issue --digest 3f9a'];
  static args = { ...PinsCommand.toolArg };
  static flags = { ...PinsCommand.digestFlag, ...PinsCommand.jsonFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ToolsPinsApprove);
    const decision = await (await this.pins(flags.config)).approve(args.tool, { by: 'cli', digest: flags.digest });
    if (flags.json) this.writeJson(decision);
    else this.printDecision(decision, 'Pinned the new definition of');
  }
}
