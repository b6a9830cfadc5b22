import { envPassthroughProblems, readEnvPassthrough } from '@factorly/process-kit';
import { createRequire } from 'node:module';
import type { PipeSpec } from './pipe.js';

// Loaded only when a tool has a json_path filter to check (the parser costs ~100ms to import).
const requireParser = (): ((input: string) => unknown) =>
  (createRequire(import.meta.url)('jsonpath-rfc9535/parser') as { default: (input: string) => unknown }).default;

/** A tool's `filter:` block, checked and with its regular expressions compiled. */
export interface FilterSpec {
  matchOutput: { pattern: RegExp; message: string; unless?: RegExp }[];
  keepLines: RegExp[];
  stripLines: RegExp[];
  replace: { pattern: RegExp; replacement: string }[];
  headLines?: number;
  tailLines?: number;
  maxLines?: number;
  jsonPath?: string;
  pipe?: PipeSpec;
}

export const FILTER_KEYS = [
  'match_output',
  'keep_lines',
  'strip_lines',
  'replace',
  'head_lines',
  'tail_lines',
  'max_lines',
  'json_path',
  'pipe',
] as const;
const PIPE_DEFAULT_TIMEOUT_MS = 5_000;
const PIPE_KEYS = ['command', 'args', 'timeout', 'env', 'env_passthrough'];

type Raw = Record<string, unknown>;

/** Compiles a `filter:` block, collecting every problem as a short phrase naming the stage. */
export function compileFilter(raw: Raw): { filter: FilterSpec; problems: string[] } {
  const problems: string[] = [];
  const problem = (message: string): void => void problems.push(message);
  for (const key of Object.keys(raw)) {
    if (!(FILTER_KEYS as readonly string[]).includes(key))
      problems.push(`unknown stage "${key}" (valid: ${FILTER_KEYS.join(', ')})`);
  }
  const filter: FilterSpec = {
    matchOutput: list(raw.match_output, 'match_output', problem).flatMap((item, i) => {
      const pattern = regex(item.pattern, `match_output[${i}].pattern`, problem);
      const unless = item.unless === undefined ? undefined : regex(item.unless, `match_output[${i}].unless`, problem);
      if (typeof item.message !== 'string') problem(`match_output[${i}] has no string "message"`);
      return pattern && typeof item.message === 'string' ? [{ pattern, message: item.message, unless }] : [];
    }),
    keepLines: patterns(raw.keep_lines, 'keep_lines', problem),
    stripLines: patterns(raw.strip_lines, 'strip_lines', problem),
    replace: list(raw.replace, 'replace', problem).flatMap((item, i) => {
      const pattern = regex(item.pattern, `replace[${i}].pattern`, problem);
      if (typeof item.replacement !== 'string') problem(`replace[${i}] has no string "replacement"`);
      return pattern && typeof item.replacement === 'string'
        ? [{ pattern: new RegExp(pattern.source, `g${pattern.flags}`), replacement: item.replacement }]
        : [];
    }),
    headLines: count(raw.head_lines, 'head_lines', problem),
    tailLines: count(raw.tail_lines, 'tail_lines', problem),
    maxLines: count(raw.max_lines, 'max_lines', problem),
    jsonPath: jsonPath(raw.json_path, problem),
    pipe: pipe(raw.pipe, problem),
  };
  return { filter, problems };
}

function list(value: unknown, key: string, problem: (m: string) => void): Raw[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'object' || item === null)) {
    problem(`${key} is not a list of mappings`);
    return [];
  }
  return value as Raw[];
}

function patterns(value: unknown, key: string, problem: (m: string) => void): RegExp[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problem(`${key} is not a list of regular expressions`);
    return [];
  }
  return value.flatMap((item, i) => regex(item, `${key}[${i}]`, problem) ?? []);
}

function regex(value: unknown, where: string, problem: (m: string) => void): RegExp | undefined {
  if (typeof value !== 'string') {
    problem(`${where} is not a string`);
    return undefined;
  }
  // Go-style `(?i)` at the start (as reference configs write it) becomes the `i` flag.
  const insensitive = value.startsWith('(?i)');
  try {
    return new RegExp(insensitive ? value.slice(4) : value, insensitive ? 'imu' : 'mu');
  } catch (error) {
    problem(`${where} is not a valid regular expression (${(error as Error).message})`);
    return undefined;
  }
}

function count(value: unknown, key: string, problem: (m: string) => void): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  problem(`${key} is not a whole number of lines`);
  return undefined;
}

function jsonPath(value: unknown, problem: (m: string) => void): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problem('json_path is not a string');
    return undefined;
  }
  try {
    requireParser()(value);
    return value;
  } catch (error) {
    problem(`json_path ${JSON.stringify(value)} is not a valid JSONPath (RFC 9535): ${(error as Error).message}`);
    return undefined;
  }
}

function pipe(value: unknown, problem: (m: string) => void): FilterSpec['pipe'] {
  if (value === undefined) return undefined;
  const raw = (typeof value === 'object' && value !== null ? value : {}) as Raw;
  if (typeof raw.command !== 'string' || raw.command === '') {
    problem('pipe has no command (pipe: {command: jq, args: [".items"]})');
    return undefined;
  }
  for (const key of Object.keys(raw))
    if (!PIPE_KEYS.includes(key)) problem(`pipe has unknown key "${key}" (valid: ${PIPE_KEYS.join(', ')})`);
  if (raw.args !== undefined && !Array.isArray(raw.args)) problem('pipe args is not a list');
  const timeoutMs = raw.timeout === undefined ? PIPE_DEFAULT_TIMEOUT_MS : Number(raw.timeout) * 1000;
  if (!(timeoutMs > 0)) problem('pipe timeout is not a positive number of seconds');
  if (raw.env !== undefined && !isStringMap(raw.env))
    problem('pipe has "env" that is not a mapping of names to strings');
  envPassthroughProblems(raw.env_passthrough, 'pipe has').forEach(problem);
  return {
    command: raw.command,
    args: Array.isArray(raw.args) ? raw.args.map(String) : [],
    timeoutMs: timeoutMs > 0 ? timeoutMs : PIPE_DEFAULT_TIMEOUT_MS,
    env: isStringMap(raw.env) ? Object.fromEntries(Object.entries(raw.env).map(([k, v]) => [k, String(v)])) : {},
    passthrough: readEnvPassthrough(raw.env_passthrough),
  };
}

function isStringMap(value: unknown): value is Record<string, string | number | boolean> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  );
}
