import { basename } from 'node:path';
import { FactorlyError } from '../base/errors.js';
import { parseSizeFlag } from './bounds.js';

/** `factorly wrap`'s synopsis: everything from the server's command on is the server's, so oclif cannot derive it. */
export const WRAP_SYNOPSIS =
  'wrap [--name NAME] [--env K=V]... [--env-passthrough NAME]... [--rate-limit N/unit] [--max-output BYTES] [--compress all|json|logs|none] ' +
  '[--passthrough] [--timeout 30s] [--max-message-size 4MiB] [--port N [--host H] [--http-token T]] ' +
  "(--url <http-mcp-url> [--transport http|sse] [--header 'Name: value']... | [--] <command> [args...])";

export const WRAP_USAGE = `usage: factorly ${WRAP_SYNOPSIS}`;

/** What `wrap` caps a result at unless told otherwise: text cut with a marker, a bigger binary block replaced by a note. */
export const WRAP_DEFAULT_MAX_OUTPUT = 1024 * 1024;

export interface WrapArgs {
  name: string;
  /** The upstream: a stdio command line, or a Streamable HTTP URL (`--url`). */
  command?: string;
  args: string[];
  url?: string;
  /** `--transport http|sse` for `--url` (checked by the mcp provider at load; none: detected). */
  transport?: string;
  configPath?: string;
  /** Serve Streamable HTTP on this port instead of stdio. */
  port?: number;
  /** `--max-message-size`: the largest MCP message read from the agent. */
  maxMessageBytes?: number;
  host: string;
  token?: string;
  /** The synthetic `mcp` config entry: upstream plus max_output, compress, timeout, env and shadow. */
  entry: Record<string, unknown>;
}

type Setter = (value: string, into: Parsed) => void;
interface Parsed extends Omit<WrapArgs, 'name' | 'entry' | 'command' | 'args'> {
  name?: string;
  env: Record<string, string>;
  /** `--env-passthrough NAME`: variables the server gets from factorly's environment besides the base. */
  envPassthrough: string[];
  /** `--header 'Name: value'`: sent with every request to a `--url` server (secret references allowed). */
  headers: Record<string, string>;
  settings: Record<string, unknown>;
  passthrough: boolean;
}

/** Flags that take a value, and where each goes. Limits and sizes are checked by the config loader, as in a file. */
const FLAGS: Record<string, Setter> = {
  '--name': (v, p) => void (p.name = v),
  '-c': (v, p) => void (p.configPath = v),
  '--config': (v, p) => void (p.configPath = v),
  '--url': (v, p) => void (p.url = v),
  '--transport': (v, p) => void (p.transport = v),
  '--port': (v, p) => void (p.port = portOf(v)),
  '--host': (v, p) => void (p.host = v),
  '--http-token': (v, p) => void (p.token = v),
  '--env': (v, p) => void Object.assign(p.env, envPair(v)),
  '--env-passthrough': (v, p) => void p.envPassthrough.push(v),
  '--header': (v, p) => void Object.assign(p.headers, headerPair(v)),
  '--rate-limit': (v, p) => void (p.settings.shadow = { rate_limit: v, scope: 'server' }),
  '--max-output': (v, p) => void (p.settings.max_output = /^\d+$/.test(v) ? Number(v) : v),
  '--compress': (v, p) => void (p.settings.compress = v),
  '--timeout': (v, p) => void (p.settings.timeout = v),
  '--max-message-size': (v, p) => void (p.maxMessageBytes = parseSizeFlag('max-message-size', v)),
};

/** Flags that take no value. */
const SWITCHES: Record<string, (into: Parsed) => void> = {
  '--passthrough': (p) => void (p.passthrough = true),
};

/**
 * Reads `wrap` argv: factorly's flags, then the server's command line, which starts at `--` or at
 * the first word that is not a flag (so `wrap node server.js --port 1` and `wrap -- node …` are
 * the same; everything from the command on is the server's), or `--url` instead of a command.
 */
export function parseWrapArgs(argv: readonly string[]): WrapArgs {
  const parsed: Parsed = {
    host: '127.0.0.1',
    token: process.env.FACTORLY_HTTP_TOKEN,
    env: {},
    envPassthrough: [],
    headers: {},
    settings: {},
    passthrough: false,
  };
  const { own, command, args } = splitCommandLine(argv, parsed);
  if ((command === undefined) === (parsed.url === undefined)) throw new FactorlyError('USAGE', WRAP_USAGE);
  if (parsed.passthrough && ('max_output' in parsed.settings || 'compress' in parsed.settings)) {
    throw new FactorlyError(
      'USAGE',
      `--passthrough turns output processing off, so it cannot go with --max-output or --compress\n${WRAP_USAGE}`,
    );
  }
  if (parsed.port === undefined && own.some((arg) => /^--(host|http-token)\b/.test(arg)))
    throw new FactorlyError('USAGE', `--host and --http-token need --port\n${WRAP_USAGE}`);
  if (parsed.url !== undefined && (Object.keys(parsed.env).length > 0 || parsed.envPassthrough.length > 0))
    throw new FactorlyError(
      'USAGE',
      `--env and --env-passthrough apply to a command started over stdio, not to --url\n${WRAP_USAGE}`,
    );
  if (Object.keys(parsed.headers).length > 0 && parsed.url === undefined)
    throw new FactorlyError('USAGE', `--header applies to --url, not to a command started over stdio\n${WRAP_USAGE}`);
  if (parsed.transport !== undefined && parsed.url === undefined)
    throw new FactorlyError(
      'USAGE',
      `--transport applies to --url, not to a command started over stdio\n${WRAP_USAGE}`,
    );
  const { name, env, envPassthrough, headers, settings, passthrough, transport, ...rest } = parsed;
  const upstream =
    parsed.url !== undefined
      ? {
          url: parsed.url,
          ...(transport === undefined ? {} : { transport }),
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
          // Its login is kept by URL (`factorly auth login --url` writes it), whatever --name says.
          oauth: { token_key: wrapTokenKey(parsed.url) },
        }
      : {
          command,
          args,
          ...(Object.keys(env).length > 0 ? { env } : {}),
          // Checked by the mcp provider at load, as the key in a file is (factorly's own variables are refused).
          ...(envPassthrough.length > 0 ? { env_passthrough: envPassthrough } : {}),
        };
  const defaults = passthrough ? {} : { max_output: WRAP_DEFAULT_MAX_OUTPUT };
  const entry = { type: 'mcp', ...upstream, prefix: false, ...defaults, ...settings };
  return {
    ...rest,
    name: name ?? (parsed.url !== undefined ? urlName(parsed.url) : serverName(command!, args)),
    command,
    args,
    entry,
  };
}

/** Applies factorly's flags to `parsed` and returns them, and the server's command line after them. */
function splitCommandLine(
  argv: readonly string[],
  parsed: Parsed,
): { own: string[]; command?: string; args: string[] } {
  const own: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i]!;
    if (word === '--') return { own, command: argv[i + 1], args: argv.slice(i + 2) };
    if (!word.startsWith('-')) return { own, command: word, args: argv.slice(i + 1) };
    own.push(word);
    const [flag, inline] = word.split(/=(.*)/s, 2) as [string, string | undefined];
    const toggle = SWITCHES[flag];
    if (toggle && inline === undefined) {
      toggle(parsed);
      continue;
    }
    const set = FLAGS[flag];
    if (!set)
      throw new FactorlyError(
        'USAGE',
        `unknown flag ${JSON.stringify(flag)} (the server's command line starts at the first word that is not a flag, or after "--")\n${WRAP_USAGE}`,
      );
    const value = inline ?? argv[++i];
    if (value === undefined) throw new FactorlyError('USAGE', `${flag} needs a value\n${WRAP_USAGE}`);
    own.push(value);
    set(value, parsed);
  }
  return { own, args: [] };
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new FactorlyError(
      'USAGE',
      `--port takes a port number from 0 to 65535, not ${JSON.stringify(text)}\n${WRAP_USAGE}`,
    );
  return port;
}

/** `Name: value` (the value may hold secret references, resolved at connect time and scrubbed). */
function headerPair(text: string): Record<string, string> {
  const at = text.indexOf(':');
  const name = text.slice(0, Math.max(at, 0)).trim();
  if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new FactorlyError('USAGE', `--header takes 'Name: value', not ${JSON.stringify(text)}\n${WRAP_USAGE}`);
  return { [name]: text.slice(at + 1).trim() };
}

/**
 * Where `wrap --url` keeps the server's OAuth login in the vault: by URL (host, port and path), so
 * `factorly auth login --url <url>` and every later `wrap --url <url>` find the same one.
 */
export function wrapTokenKey(url: string): string {
  let where = url;
  try {
    const parsed = new URL(url);
    where = `${parsed.host}${parsed.pathname}`;
  } catch {
    // Not a URL: the mcp provider refuses it at load, naming it.
  }
  return `wrap_${where
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/_+$/, '')
    .slice(0, 100)}_oauth`;
}

/** Whether a token key is one `wrapTokenKey` made (`<backend>:<key>` accepted). */
export function isWrapTokenKey(storedAs: string): boolean {
  return /(^|:)wrap_[A-Za-z0-9_.-]*_oauth$/.test(storedAs);
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
  const target =
    moduleFlag !== -1 ? args[moduleFlag + 1] : launcher ? args.find((arg) => !arg.startsWith('-')) : command;
  if (!target) return 'wrapped';
  const last = basename(target.replace(/@[^/@]*$/, '')).replace(/\.(m?js|cjs|ts|py)$/, '');
  const name = last
    .replace(/^(mcp-)?server-/, '')
    .replace(/-mcp(-server)?$/, '')
    .replace(/^mcp-/, '');
  return (name || 'wrapped').toLowerCase().replace(/[\s.]+/g, '-');
}
