import { basename } from 'node:path';
import { FactorlyError } from '../kernel/base/errors.js';

export const WRAP_USAGE = 'usage: factorly wrap [--name NAME] [--port N [--host H] [--http-token T]] -- <command> [args...]';

export interface WrapArgs {
  name: string;
  command: string;
  args: string[];
  configPath?: string;
  /** Serve Streamable HTTP on this port instead of stdio. */
  port?: number;
  host: string;
  token?: string;
}

/** Splits `wrap` argv at `--`: factorly's flags before it, the server's command line after it. */
export function parseWrapArgs(argv: readonly string[]): WrapArgs {
  const split = argv.indexOf('--');
  const own = split === -1 ? [] : argv.slice(0, split);
  const [command, ...args] = split === -1 ? [] : argv.slice(split + 1);
  if (command === undefined) throw new FactorlyError('USAGE', WRAP_USAGE);
  let name: string | undefined;
  let configPath: string | undefined;
  let port: number | undefined;
  let host = '127.0.0.1';
  let token = process.env.FACTORLY_HTTP_TOKEN;
  for (let i = 0; i < own.length; i += 1) {
    const [flag, inline] = own[i].split(/=(.*)/s, 2);
    const value = (): string => {
      const next = inline ?? own[++i];
      if (next === undefined) throw new FactorlyError('USAGE', `${flag} needs a value\n${WRAP_USAGE}`);
      return next;
    };
    if (flag === '--name') name = value();
    else if (flag === '-c' || flag === '--config') configPath = value();
    else if (flag === '--port') port = portOf(value());
    else if (flag === '--host') host = value();
    else if (flag === '--http-token') token = value();
    else throw new FactorlyError('USAGE', `unknown flag ${JSON.stringify(flag)} before "--"\n${WRAP_USAGE}`);
  }
  if (port === undefined && own.some((arg) => /^--(host|http-token)\b/.test(arg))) throw new FactorlyError('USAGE', `--host and --http-token need --port\n${WRAP_USAGE}`);
  return { name: name ?? serverName(command, args), command, args, configPath, port, host, token };
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new FactorlyError('USAGE', `--port takes a port number from 0 to 65535, not ${JSON.stringify(text)}\n${WRAP_USAGE}`);
  return port;
}

/**
 * A name for the wrapped server, as the reference derives it: the package or script after a
 * launcher (`npx @modelcontextprotocol/server-github` → github, `node server.js` → server,
 * `python -m my_server` → my_server), lower-cased, spaces and dots as dashes.
 */
export function serverName(command: string, args: readonly string[]): string {
  const launcher = ['npx', 'uvx', 'node', 'python', 'python3', 'bunx', 'deno', 'pipx'].includes(basename(command));
  const moduleFlag = args.indexOf('-m');
  const target = moduleFlag !== -1 ? args[moduleFlag + 1] : launcher ? args.find((arg) => !arg.startsWith('-')) : command;
  if (!target) return 'wrapped';
  const last = basename(target.replace(/@[^/@]*$/, '')).replace(/\.(m?js|cjs|ts|py)$/, '');
  const name = last.replace(/^(mcp-)?server-/, '').replace(/-mcp(-server)?$/, '').replace(/^mcp-/, '');
  return (name || 'wrapped').toLowerCase().replace(/[\s.]+/g, '-');
}
