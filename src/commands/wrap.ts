import { FactorlyError } from '../base/errors.js';
import { FactorlyCommand } from '../cli/base-command.js';
import { parseWrapArgs, WRAP_DEFAULT_MAX_OUTPUT, WRAP_SYNOPSIS } from '../cli/wrap-args.js';
import { MCP_PLUGIN } from '../cli/run-interface.js';
import type { InterfaceOptions } from '../contracts/extensions.js';
import { paragraphs } from '../cli/help-text.js';

export default class Wrap extends FactorlyCommand {
  static summary = 'Serve one upstream MCP server (a command, or --url) through factorly, with no config file.';
  static description = paragraphs`The server is served over MCP stdio (or Streamable HTTP with --port, as \`serve\` does) as itself:
its server info, instructions, capabilities and tools as it declares them, results as it sends them.
Every call goes through factorly: validated against the tool's schema, governed (--rate-limit counts
calls to the whole server) and recorded in the event log (the project's when there is one, else the
global one). Output is capped at ${WRAP_DEFAULT_MAX_OUTPUT} bytes (1 MiB) unless --max-output says otherwise
(text is cut in the middle with a marker; a bigger image or blob is replaced by a note) and is not
compressed unless --compress says so; --passthrough turns every output stage off (secrets stay
redacted).

The command line starts at the first word that is not a flag, or after "--". A --url server is spoken
to over Streamable HTTP, or over the legacy HTTP+SSE transport when it refuses that with a 4xx other
than 401 (a 401 is a login); --transport http or --transport sse says which, with no probe. Each
--header 'Name: value' is sent with every request to it (a value may hold secret references,
{{vault:KEY}}, resolved at connect time and scrubbed from every output). A server that needs an OAuth
login is logged in to with \`factorly auth login --url <url>\` (kept in the vault by URL); without one,
wrap says so and exits 1 before it answers the agent.
--env values may be secret references ({{vault:KEY}}), resolved when the server starts. The server's
environment is built as a tool's: PATH, HOME, LANG, TZ, TMPDIR, USER, LOGNAME, SHELL and TERM, each
--env-passthrough NAME, and --env; never factorly's own FACTORLY_* secrets.`;
  static usage = WRAP_SYNOPSIS;
  static examples = [
    '<%= config.bin %> wrap npx @modelcontextprotocol/server-everything',
    '<%= config.bin %> wrap --name fs -- node server.js /tmp',
    '<%= config.bin %> wrap --passthrough npx @modelcontextprotocol/server-filesystem .',
    '<%= config.bin %> wrap --port 3001 --http-token "$T" -- npx @modelcontextprotocol/server-everything',
    '<%= config.bin %> wrap --env GITHUB_TOKEN={{vault:GITHUB_TOKEN}} --rate-limit 100/hour -- npx @modelcontextprotocol/server-github',
    '<%= config.bin %> wrap --env-passthrough AWS_PROFILE -- node server.js',
    '<%= config.bin %> wrap --url http://127.0.0.1:3001/mcp',
    '<%= config.bin %> wrap --url http://127.0.0.1:3000/sse --transport sse',
    "<%= config.bin %> wrap --url https://mcp.example.com/mcp --header 'Authorization: Bearer {{vault:EXAMPLE_TOKEN}}'",
  ];
  static strict = false;

  async run(): Promise<void> {
    const args = parseWrapArgs(this.argv);
    // Everything from the server's command on belongs to it, so argv is parsed above; tell oclif so.
    (this as unknown as { parsed: boolean }).parsed = true;
    // JSON is YAML: the synthetic config goes through the same validation as a file would.
    const yaml = JSON.stringify({ disable_builtins: true, tools: { [args.name]: args.entry } });
    const kernel = await this.kernel(args.configPath, { inlineConfig: { name: `wrap:${args.name}`, yaml } });
    // wrap mirrors one server: one that is not connected (it needs a login, it failed) cannot fail
    // alone, so wrap says why and exits before it answers an agent's initialize.
    const { sourceStatuses } = await import('../cli/host-services.js');
    const down = sourceStatuses(kernel).find((source) => source.state !== 'connected');
    if (down?.state === 'needs_login' && args.url !== undefined)
      throw new FactorlyError(
        'AUTH_REQUIRED',
        `wrap serves nothing: the MCP server at ${args.url} answered 401 Unauthorized: it needs a login (run: factorly auth login --url ${args.url})`,
      );
    if (down)
      throw new FactorlyError(
        'UPSTREAM_FAILED',
        `wrap serves nothing: ${down.reason ?? `upstream MCP server "${down.name}" is ${down.state}`}`,
      );
    const { runInterface } = await import('../cli/run-interface.js');
    const http: InterfaceOptions =
      args.port === undefined
        ? {}
        : { transport: 'http', port: args.port, host: args.host, token: args.token, allowedOrigins: [] };
    const mcp: InterfaceOptions = {
      transport: 'stdio',
      version: this.config.version,
      mirror: true,
      ...(args.maxMessageBytes === undefined ? {} : { maxMessageBytes: args.maxMessageBytes }),
    };
    // Agents wait for their first call: do its one-time work now (a failure here is met, and reported, by that call).
    await kernel.warm().catch(() => undefined);
    await runInterface(kernel, 'mcp', { ...mcp, ...http }, MCP_PLUGIN);
  }
}
