import type { JsonValue, Params } from '../events/catalog.js';
import { didYouMean } from '../base/suggest.js';
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
  if (typeof value === 'string') {
    const length = [...value].length;
    if (spec.minLength !== undefined && length < spec.minLength)
      return { ok: false, message: `too short: ${length} < ${spec.minLength}` };
    if (spec.maxLength !== undefined && length > spec.maxLength)
      return { ok: false, message: `too long: ${length} > ${spec.maxLength}` };
    if (spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(value)) {
      return { ok: false, message: `does not match pattern "${spec.pattern}"` };
    }
  }
  if (spec.enum && !spec.enum.includes(String(value)))
    return { ok: false, message: `must be one of: ${spec.enum.join(', ')}` };
  return { ok: true, value };
}

function show(value: JsonValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}

export interface ValidatedParams {
  params: Params;
  /** True when any value changed type or a default was filled in. */
  changed: boolean;
  problems: string[];
}

/**
 * Fills defaults, coerces and checks every param against the tool's declared parameters, and
 * refuses params the tool does not declare. Runs on every interface.
 */
export function validateParams(parameters: readonly ParameterSpec[], input: Params): ValidatedParams {
  const params: Params = {};
  const problems: string[] = [];
  let changed = false;
  const names = parameters.map((p) => p.name);
  for (const name of Object.keys(input)) {
    if (!names.includes(name)) problems.push(`unknown parameter "${name}"${didYouMean(name, names)}`);
  }
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
    const result = coerceValue(spec, given);
    if (!result.ok) problems.push(`${spec.name}: ${result.message}`);
    else {
      setParam(params, spec.name, result.value);
      if (result.value !== given) changed = true;
    }
  }
  return { params, changed, problems };
}

/** Defined, not assigned: a parameter named `__proto__` is a key like any other, never the prototype. */
function setParam(params: Params, name: string, value: JsonValue): void {
  Object.defineProperty(params, name, { value, writable: true, enumerable: true, configurable: true });
}
