import ms from 'ms';
import { isMap, type Node, type YAMLMap } from 'yaml';
import { didYouMean } from '../base/suggest.js';
import {
  DEFAULT_LOOP, RATE_SCOPES, type LoopPolicy, type RateLimit, type RateScope, type RateUnit, type ShadowPolicy,
} from '../contracts/shadow-policy.js';

export const SHADOW_KEYS = [
  'deny', 'confirm', 'rate_limit', 'max_calls', 'log_params', 'timeout', 'loop', 'scope',
  'allow_urls', 'allow_patterns', 'allow_paths',
] as const;
const LOOP_KEYS = ['window', 'warn', 'block'] as const;
/** The loop rule keeps up to this many identical calls per window. */
const MAX_LOOP_BLOCK = 1000;
/** Loop and rate-limit state is folded from the last day of the log (the rules' history horizon). */
const MAX_LOOP_WINDOW_MS = 86_400_000;

const UNITS: Record<string, RateUnit> = { sec: 'sec', second: 'sec', s: 'sec', min: 'min', minute: 'min', m: 'min', hour: 'hour', h: 'hour', day: 'day', d: 'day' };
const UNIT_MS: Record<RateUnit, number> = { sec: 1_000, min: 60_000, hour: 3_600_000, day: 86_400_000 };

type Problem = (message: string, node?: Node | null) => void;

/**
 * Validates a `shadow` block. Every mistake is reported with the line of the offending key, so a
 * typo such as `rate_limit: 10/minn` is a config error rather than a limit that silently never applies.
 */
export function parseShadow(owner: string, value: unknown, node: Node | null, problem: Problem): ShadowPolicy | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem('"shadow" must be a mapping', node);
    return undefined;
  }
  const raw = value as Record<string, unknown>;
  const at = (key: string): Node | null => childNode(node, key);
  for (const key of Object.keys(raw)) {
    if (!(SHADOW_KEYS as readonly string[]).includes(key)) problem(`has unknown key "shadow.${key}"${didYouMean(key, SHADOW_KEYS)}`, at(key));
  }
  const say = (key: string): ((message: string) => void) => (message) => problem(`has an invalid shadow.${key}: ${message}`, at(key));
  const policy: ShadowPolicy = { owner };
  policy.deny = parseSelection(raw.deny, say('deny'));
  policy.confirm = parseSelection(raw.confirm, say('confirm'));
  policy.rateLimit = raw.rate_limit === undefined ? undefined : parseRateLimit(raw.rate_limit, say('rate_limit'));
  policy.scope = parseScope(raw.scope, say('scope'));
  policy.maxCalls = parseCount(raw.max_calls, say('max_calls'));
  policy.logParams = parseNames(raw.log_params, say('log_params'));
  policy.confirmTimeoutMs = parseDuration(raw.timeout, say('timeout'));
  policy.loop = parseLoop(raw.loop, at('loop'), problem);
  policy.allowUrls = parseNames(raw.allow_urls, say('allow_urls'));
  policy.allowPatterns = parseNames(raw.allow_patterns, say('allow_patterns'));
  policy.allowPaths = parseNames(raw.allow_paths, say('allow_paths'));
  return dropUndefined(policy);
}

/** `N/sec|min|hour|day` (also `second`, `minute`). */
export function parseRateLimit(value: unknown, problem: (message: string) => void): RateLimit | undefined {
  const text = String(value);
  const match = /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/i.exec(text);
  if (typeof value !== 'string' || !match) {
    problem(`${JSON.stringify(value)} is not <count>/<unit> (for example "10/min"; units: sec, min, hour, day)`);
    return undefined;
  }
  const count = Number(match[1]);
  const unit = UNITS[match[2].toLowerCase()];
  if (!unit) {
    problem(`unknown unit "${match[2]}" in "${text}"${didYouMean(match[2], ['sec', 'min', 'hour', 'day'])} (units: sec, min, hour, day)`);
    return undefined;
  }
  if (!Number.isSafeInteger(count) || count < 1) {
    problem(`the count in "${text}" must be a whole number of at least 1`);
    return undefined;
  }
  return { count, unit, windowMs: UNIT_MS[unit], text: `${count}/${match[2]}` };
}

/** `true` (every call), `false` (none: lets an overlay switch a built-in's default off) or a list of names. */
function parseSelection(value: unknown, problem: (message: string) => void): boolean | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  const names = parseNames(value, problem);
  return names && names.length > 0 ? names : undefined;
}

function parseNames(value: unknown, problem: (message: string) => void): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    problem(`expected a list of names, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return value as string[];
}

function parseScope(value: unknown, problem: (message: string) => void): RateScope | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (RATE_SCOPES as readonly string[]).includes(value)) return value as RateScope;
  problem(`"${String(value)}" is not one of ${RATE_SCOPES.join(', ')}${didYouMean(String(value), RATE_SCOPES)}`);
  return undefined;
}

function parseCount(value: unknown, problem: (message: string) => void): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  problem(`${JSON.stringify(value)} is not a whole number of at least 1`);
  return undefined;
}

function parseDuration(value: unknown, problem: (message: string) => void): number | undefined {
  if (value === undefined || value === null) return undefined;
  const millis = typeof value === 'number' ? value * 1000 : typeof value === 'string' ? ms(value as ms.StringValue) : undefined;
  if (typeof millis === 'number' && Number.isFinite(millis) && millis > 0) return millis;
  problem(`${JSON.stringify(value)} is not a duration (use "60s", "2m" or a number of seconds)`);
  return undefined;
}

function parseLoop(value: unknown, node: Node | null, problem: Problem): LoopPolicy | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === false) return { ...DEFAULT_LOOP, enabled: false };
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem('has an invalid shadow.loop: expected a mapping of window, warn and block, or false', node);
    return undefined;
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!(LOOP_KEYS as readonly string[]).includes(key)) problem(`has unknown key "shadow.loop.${key}"${didYouMean(key, LOOP_KEYS)}`, childNode(node, key));
  }
  const say = (key: string) => (message: string) => problem(`has an invalid shadow.loop.${key}: ${message}`, childNode(node, key));
  const loop: LoopPolicy = {
    enabled: true,
    windowMs: parseDuration(raw.window, say('window')) ?? DEFAULT_LOOP.windowMs,
    warn: parseCount(raw.warn, say('warn')) ?? DEFAULT_LOOP.warn,
    block: parseCount(raw.block, say('block')) ?? DEFAULT_LOOP.block,
  };
  if (loop.block < loop.warn) problem(`has an invalid shadow.loop: block (${loop.block}) must not be below warn (${loop.warn})`, node);
  if (loop.windowMs > MAX_LOOP_WINDOW_MS) problem(`has an invalid shadow.loop.window: ${ms(loop.windowMs, { long: true })} is longer than a day`, childNode(node, 'window'));
  if (loop.block > MAX_LOOP_BLOCK) problem(`has an invalid shadow.loop.block: ${loop.block} is above ${MAX_LOOP_BLOCK} (identical calls are counted up to that)`, childNode(node, 'block'));
  return loop;
}

function childNode(node: Node | null, key: string): Node | null {
  return isMap(node) ? ((node as YAMLMap).get(key, true) as Node | null) ?? node : node;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
