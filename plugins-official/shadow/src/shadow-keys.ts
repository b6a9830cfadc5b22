import { distance } from 'fastest-levenshtein';
import ms from 'ms';
import type { ConfigBlock, ConfigProblem } from 'factorly';
import {
  DEFAULT_LOOP,
  RATE_SCOPES,
  type LoopPolicy,
  type RateLimit,
  type RateUnit,
  type StandingPolicy,
} from './policy-types.js';

/** The loop rule keeps up to this many identical calls per window. */
const MAX_LOOP_BLOCK = 1000;
/**
 * The longest window a rule counts calls over: a rate limit's largest unit, and the most a loop
 * window may be. The rules' state is folded from the whole log (persisted projections), so this is
 * no read horizon: it bounds how much of it a rule keeps.
 */
const LONGEST_WINDOW_MS = 86_400_000;

const UNITS: Record<string, RateUnit> = {
  sec: 'sec',
  second: 'sec',
  s: 'sec',
  min: 'min',
  minute: 'min',
  m: 'min',
  hour: 'hour',
  h: 'hour',
  day: 'day',
  d: 'day',
};
const UNIT_MS: Record<RateUnit, number> = { sec: 1_000, min: 60_000, hour: 3_600_000, day: LONGEST_WINDOW_MS };

/** The longest a standing approval may stand (`confirm: {for: …}`), and how long `once_per: source` stands by default. */
const LONGEST_STANDING_MS = 30 * LONGEST_WINDOW_MS;
const DEFAULT_SOURCE_MS = LONGEST_WINDOW_MS;

const SELECTION = {
  anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', minLength: 1 } }],
  description: 'true, false or a list of tool names',
};
const DURATION = { type: ['string', 'number'], description: 'a duration such as "60s", "2m" or a number of seconds' };
const COUNT = { type: 'integer', minimum: 1, description: 'a whole number of at least 1' };
/** `confirm: true | false | [tools]`, or a mapping that also says what a person may approve beyond one call. */
const CONFIRM = {
  type: ['boolean', 'array', 'object'],
  description: 'true, false, a list of tool names or a mapping {tools, for, per, once_per}',
  items: { type: 'string', minLength: 1 },
  properties: {
    tools: SELECTION,
    for: DURATION,
    per: { enum: ['agent'] },
    once_per: { enum: ['source'] },
  },
  additionalProperties: false,
};

/** `confirm` parsed: which calls ask, and the standing approval a person may give instead of approving one call. */
export interface ConfirmSetting {
  selection?: boolean | string[];
  standing?: StandingPolicy;
}

/**
 * `confirm: true`, a list of tools, or `{tools?, for?, per?, once_per?}`: `for` offers approving the
 * tool for the agent that asked, for that long; `once_per: source` offers approving one script (for
 * `for`, a day by default), for whoever runs it unless `per: agent`.
 */
export function parseConfirm(value: unknown, problem: ConfigProblem = () => undefined): ConfirmSetting {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { selection: value as ConfirmSetting['selection'] };
  const raw = value as { tools?: boolean | string[]; for?: unknown; per?: string; once_per?: string };
  const selection = raw.tools ?? true;
  let forMs = raw.for === undefined ? undefined : parseDuration(raw.for, (m) => problem(m, ['for']));
  if (forMs !== undefined && forMs > LONGEST_STANDING_MS) {
    problem(`${ms(forMs, { long: true })} is longer than ${ms(LONGEST_STANDING_MS, { long: true })}`, ['for']);
    forMs = undefined;
  }
  if (raw.once_per === 'source')
    return {
      selection,
      standing: { kind: 'source', forMs: forMs ?? DEFAULT_SOURCE_MS, perAgent: raw.per === 'agent' },
    };
  if (raw.for === undefined && raw.per !== undefined)
    problem('per: agent needs `for` (how long) or `once_per: source`', ['per']);
  return { selection, ...(forMs === undefined ? {} : { standing: { kind: 'window', forMs, perAgent: true } }) };
}

/** `N/sec|min|hour|day` (also `second`, `minute`); undefined (after saying why) when it is not one. */
export function parseRateLimit(
  value: unknown,
  problem: (message: string) => void = () => undefined,
): RateLimit | undefined {
  const text = String(value);
  const match = /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/i.exec(text);
  if (typeof value !== 'string' || !match) {
    problem(`${JSON.stringify(value)} is not <count>/<unit> (for example "10/min"; units: sec, min, hour, day)`);
    return undefined;
  }
  const count = Number(match[1]);
  const unit = UNITS[match[2].toLowerCase()];
  if (!unit) {
    problem(`unknown unit "${match[2]}" in "${text}"${unitHint(match[2])} (units: sec, min, hour, day)`);
    return undefined;
  }
  if (!Number.isSafeInteger(count) || count < 1) {
    problem(`the count in "${text}" must be a whole number of at least 1`);
    return undefined;
  }
  return { count, unit, windowMs: UNIT_MS[unit], text: `${count}/${match[2]}` };
}

/** `; did you mean "min"?` for a unit a few edits from a real one (about a third of its letters). */
function unitHint(unit: string): string {
  const word = unit.toLowerCase();
  const near = ['sec', 'min', 'hour', 'day'].find(
    (name) => distance(word, name) <= Math.min(3, Math.max(1, Math.ceil(word.length / 3))),
  );
  return near ? `; did you mean "${near}"?` : '';
}

/** A duration as the config writes it (`"90s"`, `2m`, a number of seconds), in milliseconds. */
export function parseDuration(
  value: unknown,
  problem: (message: string) => void = () => undefined,
): number | undefined {
  const millis =
    typeof value === 'number' ? value * 1000 : typeof value === 'string' ? ms(value as ms.StringValue) : undefined;
  if (typeof millis === 'number' && Number.isFinite(millis) && millis > 0) return millis;
  problem(`${JSON.stringify(value)} is not a duration (use "60s", "2m" or a number of seconds)`);
  return undefined;
}

/** `loop: false`, or a mapping of window, warn and block (each defaulting). */
export function parseLoop(value: unknown, problem: ConfigProblem = () => undefined): LoopPolicy {
  if (value === false) return { ...DEFAULT_LOOP, enabled: false };
  if (typeof value !== 'object' || value === null) {
    problem('expected a mapping of window, warn and block, or false');
    return DEFAULT_LOOP;
  }
  const raw = value as { window?: unknown; warn?: number; block?: number };
  const loop: LoopPolicy = {
    enabled: true,
    windowMs:
      raw.window === undefined
        ? DEFAULT_LOOP.windowMs
        : (parseDuration(raw.window, (m) => problem(m, ['window'])) ?? DEFAULT_LOOP.windowMs),
    warn: raw.warn ?? DEFAULT_LOOP.warn,
    block: raw.block ?? DEFAULT_LOOP.block,
  };
  if (loop.block < loop.warn) problem(`block (${loop.block}) must not be below warn (${loop.warn})`);
  if (loop.windowMs > LONGEST_WINDOW_MS)
    problem(`${ms(loop.windowMs, { long: true })} is longer than a day`, ['window']);
  if (loop.block > MAX_LOOP_BLOCK)
    problem(`${loop.block} is above ${MAX_LOOP_BLOCK} (identical calls are counted up to that)`, ['block']);
  return loop;
}

/**
 * The keys of a tool's `shadow:` block the official rules read, with their schemas and the checks a
 * schema cannot make: a typo such as `rate_limit: 10/minn` is a config error naming its line, not a
 * limit that silently never applies.
 */
export const SHADOW_KEYS: Readonly<Record<string, ConfigBlock>> = {
  deny: { schema: SELECTION },
  confirm: { schema: CONFIRM, check: (value, problem) => void parseConfirm(value, problem) },
  rate_limit: {
    schema: { type: 'string', description: 'a rate such as "10/min"' },
    check: (value, problem) => void parseRateLimit(value, problem),
  },
  scope: { schema: { enum: RATE_SCOPES } },
  max_calls: { schema: COUNT },
  log_params: {
    schema: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'a list of parameter names' },
  },
  timeout: { schema: DURATION, check: (value, problem) => void parseDuration(value, problem) },
  loop: {
    schema: {
      type: ['object', 'boolean'],
      description: 'a mapping of window, warn and block, or false',
      properties: { window: DURATION, warn: COUNT, block: COUNT },
      additionalProperties: false,
    },
    check: (value, problem) => void parseLoop(value, problem),
  },
};
