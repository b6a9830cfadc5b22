import { Flags } from '@oclif/core';
import { AuthCommand, describeStatus, openBrowser } from '../../cli/auth-command.js';
import { paragraphs } from '../../cli/help-text.js';

export default class AuthLogin extends AuthCommand {
  static summary =
    'Log in to an OAuth provider or an upstream MCP server (PKCE, loopback callback) and keep its tokens in the vault.';
  static description = paragraphs`Opens the authorization page and waits up to 2 minutes for its redirect on 127.0.0.1 (port
18019, or the redirect_port configured; another free port when it is taken). For an upstream MCP server (a
type: mcp tool with a url, or with --url the server factorly wrap --url serves) the authorization server is
discovered from the server's 401 (RFC 9728, then RFC 8414 / OpenID Connect), and factorly registers itself
as a client there (RFC 7591) unless the tool's oauth: block names one; the resource parameter (RFC 8707)
names the server. The tokens are stored as one secret in the vault (or the token_backend configured) and
refreshed before they expire. A running factorly serve picks up the new login at once: the server's tools
appear and agents are told (tools/list_changed).`;
  static examples = [
    '<%= config.bin %> auth login github',
    '<%= config.bin %> auth login notion --no-browser',
    '<%= config.bin %> auth login --url https://mcp.example.com/mcp',
  ];
  static args = { ...AuthCommand.providerArg };
  static flags = {
    ...AuthCommand.jsonFlag,
    ...AuthCommand.urlFlag,
    'no-browser': Flags.boolean({ description: 'Print the authorization URL instead of opening a browser.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AuthLogin);
    const { client, name } = await this.target(flags, args.provider);
    const status = await client.login(name, {
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
