import type { ParameterSpec } from '../../config/tool-definition.js';
import { parameterFromSchema } from '@factorly/text-kit';
import type { SpecOperation } from './operations.js';

type Json = Record<string, unknown>;

import type { ParamEntry } from '../../editing/contracts.js';

/** What an imported tool's request needs beside its parameters. */
export interface RequestShape {
  params: ParamEntry[];
  /** The path with `{{param}}` placeholders. */
  path: string;
  bodyType?: 'json' | 'form' | 'raw';
  /** A body template, when the whole body is one value. */
  body?: string;
  /** Inputs left out, with why (a cookie, a file upload). */
  skipped: string[];
}

/** A name an agent can use as a parameter, an MCP client accepts and a template reads: letters, digits, `_`, `.`, `-`. */
const SAFE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const TEXT_CAP = 300;

/**
 * The parameters of an operation: path, query and header inputs, then the body's fields (one per
 * property of an object body, or the body as one value). Each is typed from its schema (required,
 * enum, default, bounds, pattern, description); a name an agent cannot use is made one, keeping the
 * API's own as `api_name`; a body field whose name a path or query input has is `body_<name>`.
 */
export function requestShape(operation: SpecOperation): RequestShape {
  const used = new Set<string>();
  const params: ParamEntry[] = [];
  const skipped: string[] = [];
  const placed = new Map<string, string>();
  for (const input of operation.inputs) {
    if (input.in === 'cookie') {
      skipped.push(`cookie parameter "${input.name}"`);
      continue;
    }
    const entry = paramOf(input.name, input.schema, input.required, input.description, used);
    entry.in = input.in;
    params.push(entry);
    if (input.in === 'path') placed.set(input.name, entry.name);
  }
  const path = operation.path.replace(/\{([^}]+)\}/g, (whole, name: string) =>
    placed.has(name) ? `{{${placed.get(name)!}}}` : whole,
  );
  const shape: RequestShape = { params, path, skipped };
  if (operation.body) addBody(shape, operation.body, used);
  return shape;
}

function addBody(shape: RequestShape, body: NonNullable<SpecOperation['body']>, used: Set<string>): void {
  const object = objectSchema(body.schema);
  shape.bodyType = body.type;
  if (object && body.type !== 'raw') {
    const required = new Set(object.required);
    for (const [name, schema] of Object.entries(object.properties)) {
      if ((schema as Json).readOnly === true) continue;
      const entry = paramOf(name, schema as Json, body.required && required.has(name), undefined, used, 'body_');
      entry.in = 'body';
      shape.params.push(entry);
    }
    return;
  }
  const entry = paramOf(
    'body',
    body.type === 'raw' ? { type: 'string' } : body.schema,
    body.required,
    body.description,
    used,
    'request_',
  );
  if (body.type === 'raw') entry.type = 'text';
  shape.params.push(entry);
  // The whole body is this one value: a string as a JSON string, anything else as its JSON.
  shape.body =
    body.type === 'raw' ? `{{${entry.name}}}` : entry.type === 'string' ? `"{{${entry.name}}}"` : `{{${entry.name}}}`;
  delete entry.api_name;
}

/** An object schema's properties and required names, `allOf` members merged; undefined when it has none. */
function objectSchema(schema: Json): { properties: Json; required: string[] } | undefined {
  const properties: Json = {};
  const required: string[] = [];
  const visit = (part: Json): void => {
    for (const member of Array.isArray(part.allOf) ? (part.allOf as Json[]) : []) visit(member);
    Object.assign(properties, (part.properties ?? {}) as Json);
    if (Array.isArray(part.required)) required.push(...part.required.map(String));
  };
  visit(schema);
  return Object.keys(properties).length > 0 ? { properties, required } : undefined;
}

function paramOf(
  apiName: string,
  schema: Json,
  required: boolean,
  description: string | undefined,
  used: Set<string>,
  clashPrefix = '',
): ParamEntry {
  let name = safeName(apiName);
  if (used.has(name) && clashPrefix) name = safeName(`${clashPrefix}${name}`);
  for (let n = 2; used.has(name); n += 1) name = `${safeName(apiName)}_${n}`;
  used.add(name);
  // A value with no declared type is text on the wire (a query or header value).
  const spec = parameterFromSchema(name, schema, required, 'string');
  const entry: ParamEntry = { name, type: spec.type };
  if (spec.enum) entry.enum = spec.enum;
  if (isScalar(schema.default) && fits(spec, schema.default)) entry.default = schema.default;
  if (spec.type === 'integer' || spec.type === 'number')
    Object.assign(entry, defined({ min: spec.min, max: spec.max }));
  if (spec.type === 'string')
    Object.assign(entry, defined({ min_length: spec.minLength, max_length: spec.maxLength, pattern: spec.pattern }));
  const about = shortText(description ?? spec.description);
  if (about) entry.description = about;
  if (required) entry.required = true;
  if (name !== apiName) entry.api_name = apiName;
  return entry;
}

function defined(fields: Record<string, unknown>): Json {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function fits(param: ParameterSpec, value: unknown): boolean {
  if (param.type === 'enum') return (param.enum ?? []).includes(String(value));
  if (param.type === 'integer') return Number.isInteger(value);
  if (param.type === 'number') return typeof value === 'number';
  if (param.type === 'boolean') return typeof value === 'boolean';
  return param.type === 'string' && typeof value === 'string';
}

function isScalar(value: unknown): value is string | number | boolean {
  return ['string', 'number', 'boolean'].includes(typeof value);
}

/** A name an agent can use: unsafe characters become `_` (`statuses[]` → `statuses`, `X-Id` stays). */
export function safeName(name: string): string {
  if (SAFE.test(name)) return name;
  const cleaned = name
    .replace(/\[\]$/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^_+|_+$/g, '');
  const safe = /^[A-Za-z_]/.test(cleaned) ? cleaned : `p_${cleaned}`;
  return safe.slice(0, 64) || 'value';
}

/** The first paragraph of a description, on one line, capped. */
export function shortText(text: string | undefined, cap = TEXT_CAP): string | undefined {
  if (!text) return undefined;
  const first = text
    .trim()
    .split(/\n\s*\n/)[0]
    .replace(/\s+/g, ' ')
    .trim();
  return first.length > cap ? `${first.slice(0, cap - 1)}…` : first || undefined;
}
