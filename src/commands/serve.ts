import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../cli/base-command.js';
import { parseDurationFlag, parseSizeFlag } from '../cli/bounds.js';
import { interfaceSettings, MCP_PLUGIN } from '../cli/run-interface.js';
import { paragraphs } from '../cli/help-text.js';
import type { InterfaceOptions } from '../contracts/extensions.js';

export default class Serve extends FactorlyCommand {
  static summary =
    'Run an interface (default: MCP for agents, over stdio or Streamable HTTP with --port) until SIGINT/SIGTERM.';
  static description = paragraphs`Without --port, factorly speaks MCP on stdin/stdout (what an agent's MCP config launches).
With --port, it serves Streamable HTTP at http://<host>:<port>/mcp, bound to 127.0.0.1 unless --host
says otherwise; with a token (--http-token or FACTORLY_HTTP_TOKEN) every request needs
"Authorization: Bearer <token>". The config's serve.tokens (one named token per agent) and serve.oauth
(OAuth access tokens from an issuer) name the agent a request comes from; each may be combined with
--http-token. Any other --host needs a token. Requests must be addressed (Host,
name and port) to a loopback name, the bound address or, off loopback, this machine's names, or an
--allowed-host. Every call is validated, governed and recorded; SIGINT/SIGTERM let
in-flight calls finish before the log is closed.

--interface runs any installed interface instead (\`factorly ui\` is \`serve --interface ui\`; a
plugin's own interface by its name) with the same lifecycle. It gets --port, --host, --http-token
(as token), --allowed-host and --allowed-origin, and each --set key=value (a value that reads as JSON
is parsed: --set verbose=true).`;
  static examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 3000 --http-token "$(openssl rand -hex 32)"',
    '<%= config.bin %> serve --code-mode',
    '<%= config.bin %> serve --interface ui --port 0',
  ];
  static flags = {
    interface: Flags.string({
      char: 'i',
      description: 'The interface to run (`factorly plugins inspect` lists them).',
      default: 'mcp',
    }),
    port: Flags.integer({
      description: 'Serve Streamable HTTP on this port (0 picks a free one) instead of stdio.',
      min: 0,
      max: 65_535,
    }),
    host: Flags.string({ description: 'Address to bind for HTTP.', default: '127.0.0.1' }),
    'http-token': Flags.string({
      description: 'Bearer token every HTTP request must carry (else FACTORLY_HTTP_TOKEN).',
      env: 'FACTORLY_HTTP_TOKEN',
    }),
    'allowed-origin': Flags.string({
      description: 'An extra Origin allowed to call over HTTP (repeatable).',
      multiple: true,
    }),
    'allowed-host': Flags.string({
      description: "An extra Host name (or name:port) requests may be addressed to, e.g. a proxy's (repeatable).",
      multiple: true,
    }),
    'session-idle': Flags.string({
      description: 'Close an HTTP session after this long with no request and no open stream (0: never).',
      default: '30m',
    }),
    'code-mode': Flags.boolean({
      description: 'Expose one "execute" tool (plus search/describe) whose program reaches every tool through tools.*.',
    }),
    'max-message-size': Flags.string({
      description:
        'The largest MCP message read from a client (bigger ones are answered with an error; over HTTP, 413).',
      default: '4MiB',
    }),
    witness: Flags.string({
      description: 'Copy each checkpoint of the log into this directory too (repeatable).',
      multiple: true,
    }),
    set: Flags.string({ description: 'An option for the interface, key=value (repeatable).', multiple: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const kernel = await this.kernel(flags.config);
    for (const dir of flags.witness ?? []) kernel.checkpoints.addWitnessDir(resolve(dir));
    const { runInterface } = await import('../cli/run-interface.js');
    const common = {
      host: flags.host,
      token: flags['http-token'],
      allowedOrigins: flags['allowed-origin'] ?? [],
      allowedHosts: flags['allowed-host'] ?? [],
      version: this.config.version,
    };
    const extra = interfaceSettings(flags.set ?? []);
    if (flags.interface !== 'mcp') {
      await runInterface(
        kernel,
        flags.interface,
        { ...common, ...(flags.port === undefined ? {} : { port: flags.port }), ...extra },
        'a plugin: `factorly plugins install <package>`',
      );
      return;
    }
    const idleMs = parseDurationFlag('session-idle', flags['session-idle']);
    const http = flags.port === undefined ? {} : { ...common, port: flags.port, idleMs };
    const maxMessageBytes = parseSizeFlag('max-message-size', flags['max-message-size']);
    const options: InterfaceOptions = {
      transport: flags.port === undefined ? 'stdio' : 'http',
      version: this.config.version,
      codeMode: flags['code-mode'],
      maxMessageBytes,
      ...http,
      ...extra,
    };
    // Agents wait for their first call: do its one-time work now (a failure here is met, and reported, by that call).
    await kernel.warm().catch(() => undefined);
    await runInterface(kernel, 'mcp', options, MCP_PLUGIN);
  }
}
