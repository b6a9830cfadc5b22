import type { JsonValue, Params } from '../events/catalog.js';
import { didYouMean } from '../base/suggest.js';
import { MAX_PARAM_DEPTH, nestsDeeperThan } from '../base/json-depth.js';
import type { ParameterSpec } from './tool-definition.js';

export type Coerced = { ok: true; value: JsonValue } | { ok: false; message: string };

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Converts one value to its declared type (the CLI passes strings; MCP passes JSON) and checks its limits. */
export function coerceValue(spec: ParameterSpec, value: JsonValue): Coerced {
  const typed = toType(spec, value);
  return typed.ok ? checkLimits(spec, typed.value) : typed;
}

function toType(spec: ParameterSpec, value: JsonValue): Coerced {
  switch (spec.type) {
    case 'integer':
      return toInteger(value);
    case 'number':
      return toNumber(value);
    case 'boolean':
      return toBoolean(value);
    case 'json':
      return toJson(value);
    default:
      return toText(value);
  }
}

function toInteger(value: JsonValue): Coerced {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { ok: true, value };
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) && Number.isSafeInteger(Number(value))) {
    return { ok: true, value: Number(value) };
  }
  return { ok: false, message: `expected integer, got ${show(value)}` };
}

function toNumber(value: JsonValue): Coerced {
  if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value };
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return { ok: true, value: Number(value) };
  return { ok: false, message: `expected number, got ${show(value)}` };
}

function toBoolean(value: JsonValue): Coerced {
  if (typeof value === 'boolean') return { ok: true, value };
  const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (text !== undefined && TRUE.has(text)) return { ok: true, value: true };
  if (text !== undefined && FALSE.has(text)) return { ok: true, value: false };
  return { ok: false, message: `expected boolean, got ${show(value)}` };
}

function toJson(value: JsonValue): Coerced {
  if (typeof value !== 'string') return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) as JsonValue };
  } catch (error) {
    return { ok: false, message: `invalid JSON (${(error as Error).message})` };
  }
}

function toText(value: JsonValue): Coerced {
  if (typeof value === 'string') return { ok: true, value };
  if (typeof value === 'number' || typeof value === 'boolean') return { ok: true, value: String(value) };
  return {
    ok: false,
    message: `expected string, got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : 'an object'}`,
  };
}

function checkLimits(spec: ParameterSpec, value: JsonValue): Coerced {
  if (typeof value === 'number') {
    if (spec.min !== undefined && value < spec.min)
      return { ok: false, message: `must be at least ${spec.min}, got ${value}` };
    if (spec.max !== undefined && value > spec.max)
      return { ok: false, message: `must be at most ${spec.max}, got ${value}` };
  }
  if (typeof value === 'string' && (spec.minLength !== undefined || spec.maxLength !== undefined)) {
    const length = codePoints(value);
    if (spec.minLength !== undefined && length < spec.minLength)
      return { ok: false, message: `too short: ${length} < ${spec.minLength}` };
    if (spec.maxLength !== undefined && length > spec.maxLength)
      return { ok: false, message: `too long: ${length} > ${spec.maxLength}` };
  }
  if (typeof value === 'string' && spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(value))
    return { ok: false, message: `does not match pattern "${spec.pattern}"` };
  if (spec.enum && !spec.enum.includes(String(value)))
    return { ok: false, message: `must be one of: ${spec.enum.join(', ')}` };
  return { ok: true, value };
}

/** Characters as a person counts them (code points), without building an array of them. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** A value as a refusal quotes it: at most 100 characters of its JSON, however big it is. */
function show(value: JsonValue): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 100 ? text : `${text.slice(0, 100)}… (${text.length} characters)`;
}

export interface ValidatedParams {
  params: Params;
  /** True when any value changed type or a default was filled in. */
  changed: boolean;
  problems: string[];
}

/** Problems a refusal names at most; the rest are counted, so the refusal stays short whatever was sent. */
export const MAX_PROBLEMS_NAMED = 10;

/**
 * Fills defaults, coerces and checks every param against the tool's declared parameters, and
 * refuses params the tool does not declare and values that nest deeper than `MAX_PARAM_DEPTH`. Runs on
 * every interface; linear in the params' size.
 */
export function validateParams(parameters: readonly ParameterSpec[], input: Params): ValidatedParams {
  const params: Params = {};
  const problems: string[] = [];
  let changed = false;
  const names = new Set(parameters.map((p) => p.name));
  let unknown = 0;
  for (const name of Object.keys(input)) {
    if (names.has(name)) continue;
    // Only the names shown get a suggestion: each costs a distance to every declared name.
    if ((unknown += 1) <= MAX_PROBLEMS_NAMED)
      problems.push(`unknown parameter "${shownName(name)}"${didYouMean(shownName(name), names)}`);
  }
  if (unknown > MAX_PROBLEMS_NAMED) problems.push(`and ${unknown - MAX_PROBLEMS_NAMED} more unknown parameters`);
  for (const spec of parameters) {
    // Own keys only: a parameter named `constructor` must not read Object.prototype's when absent.
    const given = Object.hasOwn(input, spec.name) ? input[spec.name] : undefined;
    if (given === undefined || given === null) {
      if (spec.default !== undefined) {
        setParam(params, spec.name, spec.default);
        changed = true;
      } else if (spec.required) problems.push(`required parameter "${spec.name}" missing`);
      continue;
    }
    const result: Coerced = nestsDeeperThan(given, MAX_PARAM_DEPTH)
      ? { ok: false, message: `nests deeper than ${MAX_PARAM_DEPTH} levels` }
      : coerceValue(spec, given);
    if (!result.ok) problems.push(`${spec.name}: ${result.message}`);
    else {
      setParam(params, spec.name, result.value);
      if (result.value !== given) changed = true;
    }
  }
  return { params, changed, problems };
}

/** A name as a refusal shows it: a caller can send a key of any length. */
function shownName(name: string): string {
  return name.length <= 100 ? name : `${name.slice(0, 100)}…`;
}

/** Defined, not assigned: a parameter named `__proto__` is a key like any other, never the prototype. */
function setParam(params: Params, name: string, value: JsonValue): void {
  Object.defineProperty(params, name, { value, writable: true, enumerable: true, configurable: true });
}

/** A person's answer as `validateAnswer` leaves it: coerced (absent when nothing was given and nothing is needed), or refused. */
export type CheckedAnswer = { ok: true; value?: JsonValue } | { ok: false; message: string };

/**
 * A person's answer to a question declared like a parameter (`factorly.ask`), checked and coerced as
 * that param would be: nothing given (no value, `null`, blank text) takes the question's default, and
 * is refused when the question is required and has none.
 */
export function validateAnswer(question: ParameterSpec, given: JsonValue | undefined): CheckedAnswer {
  const blank = given === undefined || given === null || (typeof given === 'string' && given.trim() === '');
  if (blank) {
    if (question.default !== undefined) return coerceValue(question, question.default);
    return question.required ? { ok: false, message: 'an answer is required' } : { ok: true };
  }
  if (nestsDeeperThan(given, MAX_PARAM_DEPTH))
    return { ok: false, message: `nests deeper than ${MAX_PARAM_DEPTH} levels` };
  return coerceValue(question, given);
}
