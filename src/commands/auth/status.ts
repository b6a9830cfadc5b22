import { Args } from '@oclif/core';
import { AuthCommand } from '../../cli/auth-command.js';

export default class AuthStatus extends AuthCommand {
  static summary = 'Show whether each OAuth provider is logged in and when its token expires.';
  static examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status github --json'];
  static args = { provider: Args.string({ description: 'One provider (default: every provider).' }) };
  static flags = { ...AuthCommand.jsonFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthStatus);
    const client = await this.oauth(flags.config);
    const names = args.provider ? [args.provider] : client.names();
    const statuses = await Promise.all(names.map((name) => client.status(name)));
    if (flags.json) this.writeJson({ providers: statuses });
    else if (statuses.length === 0) this.log('No OAuth providers configured (add oauth_providers to your config).');
    else for (const status of statuses) this.printStatus(status);
  }
}
