import { AuthCommand } from '../../cli/auth-command.js';

export default class AuthLogout extends AuthCommand {
  static summary = "Remove an OAuth provider's stored tokens.";
  static examples = ['<%= config.bin %> auth logout github'];
  static args = { ...AuthCommand.providerArg };
  static flags = { ...AuthCommand.jsonFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthLogout);
    const client = await this.oauth(flags.config);
    const { storedAs } = await client.status(args.provider);
    const removed = await client.logout(args.provider);
    if (flags.json) this.writeJson({ name: args.provider, removed, storedAs });
    else
      this.log(removed ? `Logged out of ${args.provider} (removed ${storedAs})` : `Not logged in to ${args.provider}`);
  }
}
