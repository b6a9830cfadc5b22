import { AuthCommand, describeStatus } from '../../cli/auth-command.js';

export default class AuthRefresh extends AuthCommand {
  static summary =
    "Renew an OAuth provider's or upstream MCP server's access token now, with its stored refresh token.";
  static examples = ['<%= config.bin %> auth refresh github', '<%= config.bin %> auth refresh notion --json'];
  static args = { ...AuthCommand.providerArg };
  static flags = { ...AuthCommand.jsonFlag, ...AuthCommand.urlFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthRefresh);
    const { client, name } = await this.target(flags, args.provider);
    const status = await client.refresh(name);
    if (flags.json) this.writeJson(status);
    else this.log(`Refreshed ${status.name}: ${describeStatus(status)}`);
  }
}
