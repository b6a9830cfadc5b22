import { basename } from 'node:path';
import { FactorlyError } from '../kernel/base/errors.js';

export const WRAP_USAGE =
  'usage: factorly wrap [--name NAME] [--env K=V]... [--rate-limit N/unit] [--max-output BYTES] [--compress all|json|logs|none] [--timeout 30s]\n' +
  '                     [--port N [--host H] [--http-token T]] (--url <http-mcp-url> | -- <command> [args...])';

export interface WrapArgs {
  name: string;
  /** The upstream: a stdio command line, or a Streamable HTTP URL (`--url`). */
  command?: string;
  args: string[];
  url?: string;
  configPath?: string;
  /** Serve Streamable HTTP on this port instead of stdio. */
  port?: number;
  host: string;
  token?: string;
  /** The synthetic `mcp` config entry: upstream plus max_output, compress, timeout, env and shadow. */
  entry: Record<string, unknown>;
}

type Setter = (value: string, into: Parsed) => void;
interface Parsed extends Omit<WrapArgs, 'name' | 'entry' | 'command' | 'args'> {
  name?: string;
  env: Record<string, string>;
  settings: Record<string, unknown>;
}

/** Flags that take a value, and where each goes. Limits and sizes are checked by the config loader, as in a file. */
const FLAGS: Record<string, Setter> = {
  '--name': (v, p) => void (p.name = v),
  '-c': (v, p) => void (p.configPath = v),
  '--config': (v, p) => void (p.configPath = v),
  '--url': (v, p) => void (p.url = v),
  '--port': (v, p) => void (p.port = portOf(v)),
  '--host': (v, p) => void (p.host = v),
  '--http-token': (v, p) => void (p.token = v),
  '--env': (v, p) => void Object.assign(p.env, envPair(v)),
  '--rate-limit': (v, p) => void (p.settings.shadow = { rate_limit: v, scope: 'server' }),
  '--max-output': (v, p) => void (p.settings.max_output = /^\d+$/.test(v) ? Number(v) : v),
  '--compress': (v, p) => void (p.settings.compress = v),
  '--timeout': (v, p) => void (p.settings.timeout = v),
};

/** Splits `wrap` argv at `--`: factorly's flags before it, the server's command line after it (or `--url`). */
export function parseWrapArgs(argv: readonly string[]): WrapArgs {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const [command, ...args] = split === -1 ? [] : argv.slice(split + 1);
  const parsed: Parsed = { host: '127.0.0.1', token: process.env.FACTORLY_HTTP_TOKEN, env: {}, settings: {} };
  for (let i = 0; i < own.length; i += 1) {
    const [flag, inline] = own[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const set = FLAGS[flag];
    if (!set) throw new FactorlyError('USAGE', `unknown flag ${JSON.stringify(flag)} before "--"\n${WRAP_USAGE}`);
    const value = inline ?? own[++i];
    if (value === undefined) throw new FactorlyError('USAGE', `${flag} needs a value\n${WRAP_USAGE}`);
    set(value, parsed);
  }
  if ((command === undefined) === (parsed.url === undefined)) throw new FactorlyError('USAGE', WRAP_USAGE);
  if (parsed.port === undefined && own.some((arg) => /^--(host|http-token)\b/.test(arg))) throw new FactorlyError('USAGE', `--host and --http-token need --port\n${WRAP_USAGE}`);
  if (parsed.url !== undefined && Object.keys(parsed.env).length > 0) throw new FactorlyError('USAGE', `--env applies to a command started over stdio, not to --url\n${WRAP_USAGE}`);
  const { name, env, settings, ...rest } = parsed;
  const upstream = parsed.url !== undefined ? { url: parsed.url } : { command, args, ...(Object.keys(env).length > 0 ? { env } : {}) };
  const entry = { type: 'mcp', ...upstream, prefix: false, max_output: 50_000, compress: 'all', ...settings };
  return { ...rest, name: name ?? (parsed.url !== undefined ? urlName(parsed.url) : serverName(command!, args)), command, args, entry };
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new FactorlyError('USAGE', `--port takes a port number from 0 to 65535, not ${JSON.stringify(text)}\n${WRAP_USAGE}`);
  return port;
}

function envPair(text: string): Record<string, string> {
  const at = text.indexOf('=');
  if (at <= 0) throw new FactorlyError('USAGE', `--env takes NAME=VALUE, not ${JSON.stringify(text)}\n${WRAP_USAGE}`);
  return { [text.slice(0, at)]: text.slice(at + 1) };
}

/** A name for a wrapped URL, as the reference derives it: the last path segment, else the host (`http://my-server:8080` → my-server). */
export function urlName(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'wrapped';
  }
  const segment = parsed.pathname.split('/').filter(Boolean).pop();
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  const name = segment ?? (local ? undefined : parsed.hostname);
  return (name || 'wrapped').toLowerCase().replace(/[\s.]+/g, '-');
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
