import { AuthCommand, describeStatus } from '../../cli/auth-command.js';

export default class AuthRefresh extends AuthCommand {
  static summary = "Renew an OAuth provider's access token now, with its stored refresh token.";
  static examples = ['<%= config.bin %> auth refresh github'];
  static args = { ...AuthCommand.providerArg };
  static flags = { ...AuthCommand.jsonFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthRefresh);
    const status = await (await this.oauth(flags.config)).refresh(args.provider);
    if (flags.json) this.writeJson(status);
    else this.log(`Refreshed ${status.name}: ${describeStatus(status)}`);
  }
}
