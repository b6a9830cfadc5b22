import { Args } from '@oclif/core';
import { AuthCommand } from '../../cli/auth-command.js';

export default class AuthStatus extends AuthCommand {
  static summary = 'Show whether each OAuth provider and upstream MCP server is logged in, and when its token expires.';
  static examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status github --json',
    '<%= config.bin %> auth status --url https://mcp.example.com/mcp',
  ];
  static args = { provider: Args.string({ description: 'One provider or upstream (default: every one).' }) };
  static flags = { ...AuthCommand.jsonFlag, ...AuthCommand.urlFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthStatus);
    const listed =
      args.provider === undefined && flags.url === undefined
        ? await this.oauth(flags.config).then((client) => ({ client, names: client.names() }))
        : await this.target(flags, args.provider).then(({ client, name }) => ({ client, names: [name] }));
    const statuses = await Promise.all(listed.names.map((name) => listed.client.status(name)));
    if (flags.json)
      this.writeJson({
        providers: statuses.filter((status) => status.kind === 'provider'),
        upstreams: statuses.filter((status) => status.kind === 'upstream'),
      });
    else if (statuses.length === 0)
      this.log('No OAuth logins configured (add oauth_providers, or a type: mcp tool with a url, to your config).');
    else for (const status of statuses) this.printStatus(status);
  }
}
