import { Flags } from '@oclif/core';
import { AuthCommand, describeStatus, openBrowser } from '../../cli/auth-command.js';
import { paragraphs } from '../../cli/help-text.js';

export default class AuthLogin extends AuthCommand {
  static summary = 'Log in to an OAuth provider (PKCE, loopback callback) and keep its tokens in the vault.';
  static description = paragraphs`Opens the provider's authorization page and waits up to 2 minutes for its redirect on
127.0.0.1 (port 18019, or the provider's redirect_port; another free port when it is taken). The tokens are
stored as one secret in the vault (or the provider's token_backend) and refreshed before they expire; tools
use them through auth: {type: oauth, provider: <name>} or {{oauth:<name>}}. A running factorly serve picks up
the new login at once.`;
  static examples = ['<%= config.bin %> auth login github', '<%= config.bin %> auth login github --no-browser'];
  static args = { ...AuthCommand.providerArg };
  static flags = {
    ...AuthCommand.jsonFlag,
    'no-browser': Flags.boolean({ description: 'Print the authorization URL instead of opening a browser.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthLogin);
    const client = await this.oauth(flags.config);
    const status = await client.login(args.provider, {
      open: async (url) => {
        const opened = !flags['no-browser'] && (await openBrowser(url));
        process.stderr.write(
          opened ? `Opening browser for authorization...\n${url}\n` : `Open this URL to authorize factorly:\n${url}\n`,
        );
      },
    });
    if (flags.json) this.writeJson(status);
    else this.log(`Authenticated with ${status.name}: ${describeStatus(status)}`);
  }
}
