import { readFileSync } from 'node:fs';
import type { Params } from '../events/catalog.js';
import { FactorlyError } from '../base/errors.js';

export interface CallArgs {
  tool: string;
  params: Params;
  json: boolean;
  configPath?: string;
  /** The object given with `--params`, kept apart for tools that have a parameter named `params`. */
  jsonParams?: Params;
  /** The `--name value` flags alone. */
  flags: Params;
}

/** `factorly call`'s synopsis: a tool's params are its flags, so oclif cannot derive it. */
export const CALL_SYNOPSIS = 'call <tool> [--<param> <value>]... [--params <json>] [--json] [-c <config>]';

/**
 * Parses `factorly call` argv by hand, since a tool's params are its own flags:
 * `--k v`, `--k=v`, a bare `--k` (→ "true"), `-` (stdin), `@file` (file contents), `@@x` (literal "@x"),
 * `--params '<json object>'` merged under the flags, plus `--json` and `-c/--config`.
 */
export async function parseCallArgs(argv: readonly string[], readStdin: () => Promise<string>): Promise<CallArgs> {
  const rest = [...argv];
  let tool: string | undefined;
  let json = false;
  let configPath: string | undefined;
  let fromJson: Params | undefined;
  const flags: Params = {};
  let stdinUsed = false;
  while (rest.length > 0) {
    const arg = rest.shift()!;
    if (arg === '--json') json = true;
    else if (arg === '-c' || arg === '--config') configPath = required(rest.shift(), arg);
    else if (arg.startsWith('--config=')) configPath = arg.slice('--config='.length);
    else if (arg === '--params' || arg.startsWith('--params=')) {
      fromJson = parseJsonParams(arg === '--params' ? required(rest.shift(), arg) : arg.slice('--params='.length));
    } else if (arg.startsWith('--') && arg.length > 2) {
      const [name, inline] = splitFlag(arg.slice(2));
      const value = inline ?? (rest.length > 0 && !rest[0].startsWith('--') ? rest.shift()! : 'true');
      const resolved = await resolveValue(value, name, async () => {
        if (stdinUsed) throw usage(`only one parameter can read stdin ("-"); --${name} asked for it again`);
        stdinUsed = true;
        return (await readStdin()).replace(/\n$/, '');
      });
      flags[name] = resolved;
    } else if (tool === undefined) tool = arg;
    else throw usage(`unexpected argument "${arg}" (params are passed as --name value)`);
  }
  if (tool === undefined) throw usage('missing the <tool> argument (the tool to call, as `factorly tools` lists it)');
  return { tool, params: { ...fromJson, ...flags }, json, configPath, jsonParams: fromJson, flags };
}

function splitFlag(body: string): [string, string | undefined] {
  const eq = body.indexOf('=');
  return eq < 0 ? [body, undefined] : [body.slice(0, eq), body.slice(eq + 1)];
}

async function resolveValue(value: string, name: string, stdin: () => Promise<string>): Promise<string> {
  if (value === '-') return stdin();
  if (value.startsWith('@@')) return value.slice(1);
  if (value.startsWith('@') && value.length > 1) {
    try {
      return readFileSync(value.slice(1), 'utf8').replace(/\n+$/, '');
    } catch (error) {
      throw usage(`--${name}: cannot read ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  return value;
}

function parseJsonParams(text: string): Params {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usage(`--params is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw usage('--params must be a JSON object');
  return parsed as Params;
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined) throw usage(`${flag} needs a value`);
  return value;
}

function usage(message: string): FactorlyError {
  return new FactorlyError('USAGE', message);
}
