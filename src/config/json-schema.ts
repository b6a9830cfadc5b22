import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, ErrorObject, ValidateFunction } from 'ajv';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import type { JsonSchema } from './plugin-config.js';

/** A value's mistake against its schema: where below the value, and what, in words a person can act on. */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
  /** The last step of `path` is a key the schema does not know; `message` is then a suggestion, or empty. */
  unknownKey?: boolean;
}

const compiled = new WeakMap<object, ValidateFunction>();
let ajv: AjvInstance | undefined;

/**
 * Made on the first schema compiled, not when this module loads: loading Ajv and its meta-schema
 * costs a command's start ~15 ms, and most starts (`factorly call`, a config with no plugin block)
 * compile none. allErrors: every mistake of a file at once; verbose: errors carry the schema and
 * value they are about.
 */
function theAjv(): AjvInstance {
  if (!ajv) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    ajv = new Ajv({ allErrors: true, verbose: true, strict: false, useDefaults: true });
  }
  return ajv;
}

/**
 * Checks `value` against `schema` (defaults the schema declares are filled in, in place). A schema
 * Ajv cannot compile throws, naming `owner`: a plugin shipped a broken schema.
 */
export function schemaProblems(schema: JsonSchema, value: unknown, owner: string): SchemaProblem[] {
  const validate = validatorOf(schema, owner);
  if (validate(value)) return [];
  return summarise(validate.errors ?? []);
}

function validatorOf(schema: JsonSchema, owner: string): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = theAjv().compile(schema as Record<string, unknown>);
    } catch (error) {
      throw new FactorlyError(
        'PLUGIN_INVALID',
        `${owner} declares a config schema that is not valid JSON Schema: ${(error as Error).message}`,
      );
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/** One message per place: a failed `anyOf` says what was expected instead of each branch's complaint. */
function summarise(errors: readonly ErrorObject[]): SchemaProblem[] {
  const alternatives = new Set(
    errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath),
  );
  const seen = new Set<string>();
  const problems: SchemaProblem[] = [];
  for (const error of errors) {
    const inBranch =
      alternatives.has(error.instancePath) &&
      error.keyword !== 'anyOf' &&
      error.keyword !== 'oneOf' &&
      error.keyword !== 'additionalProperties';
    if (inBranch) continue;
    const path = pointerPath(error.instancePath);
    const message = messageOf(error);
    const key = `${error.instancePath}\0${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(
      error.keyword === 'additionalProperties'
        ? { path: [...path, String(error.params.additionalProperty)], message, unknownKey: true }
        : { path, message },
    );
  }
  return problems;
}

function messageOf(error: ErrorObject): string {
  const got = JSON.stringify(error.data);
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      return didYouMean(String(error.params.additionalProperty), Object.keys((schema.properties ?? {}) as object));
    }
    case 'enum': {
      const allowed = (error.params.allowedValues as unknown[]).map(String);
      return `${got} is not one of ${allowed.join(', ')}${didYouMean(String(error.data), allowed)}`;
    }
    case 'required':
      return `is missing "${String(error.params.missingProperty)}"`;
    case 'type':
    case 'anyOf':
    case 'oneOf':
      return `expected ${describe(schema)}, got ${got}`;
    case 'pattern':
      return `${got} ${typeof schema.description === 'string' ? `is not ${schema.description}` : `does not match ${String(error.params.pattern)}`}`;
    default:
      return typeof schema.description === 'string'
        ? `${got} is not ${schema.description}`
        : `${got} ${error.message ?? 'is not valid'}`;
  }
}

/** What a schema stands for, in words: its `description`, or its alternatives, or its type. */
function describe(schema: Record<string, unknown>): string {
  if (typeof schema.description === 'string') return schema.description;
  const branches = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (Array.isArray(branches)) return branches.map(describe).join(' or ');
  const type = schema.type;
  if (type === 'array') return 'a list';
  if (type === 'object') return 'a mapping';
  if (Array.isArray(type))
    return type.map((t) => (t === 'object' ? 'a mapping' : t === 'array' ? 'a list' : `a ${String(t)}`)).join(' or ');
  return typeof type === 'string' ? `a ${type}` : 'a valid value';
}

function pointerPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `a.b[2].c` for messages. */
export function shownPath(base: string, path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (shown, part) =>
      typeof part === 'number' || /^\d+$/.test(String(part)) ? `${shown}[${part}]` : `${shown}.${part}`,
    base,
  );
}
