import { AuthCommand } from '../../cli/auth-command.js';

export default class AuthLogout extends AuthCommand {
  static summary = "Remove an OAuth provider's or upstream MCP server's stored tokens.";
  static examples = [
    '<%= config.bin %> auth logout github',
    '<%= config.bin %> auth logout --url https://mcp.example.com/mcp',
  ];
  static args = { ...AuthCommand.providerArg };
  static flags = { ...AuthCommand.jsonFlag, ...AuthCommand.urlFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthLogout);
    const { client, name } = await this.target(flags, args.provider);
    const { storedAs } = await client.status(name);
    const removed = await client.logout(name);
    if (flags.json) this.writeJson({ name, removed, storedAs });
    else this.log(removed ? `Logged out of ${name} (removed ${storedAs})` : `Not logged in to ${name}`);
  }
}
