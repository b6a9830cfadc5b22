import type { ReadSpec } from './spec.js';

type Json = Record<string, unknown>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** One input of an operation as both spec versions say it: where it goes, its schema, whether it must be given. */
export interface SpecInput {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie' | 'body';
  required: boolean;
  description?: string;
  schema: Json;
}

/** An operation, the same for OpenAPI 3.x and Swagger 2.0. */
export interface SpecOperation {
  /** The operationId, or `METHOD /path` when it has none. */
  id: string;
  operationId?: string;
  method: string;
  path: string;
  summary?: string;
  description?: string;
  inputs: SpecInput[];
  /** The request body: one field per property of an object schema, or the whole body as one value. */
  body?: { type: 'json' | 'form' | 'raw'; schema: Json; required: boolean; description?: string };
  /** Security requirements in force (the operation's, else the document's); `[]` means none. */
  security: Json[];
  deprecated: boolean;
}

/** Every operation of a dereferenced spec, in the spec's order. */
export function operationsOf(spec: ReadSpec): SpecOperation[] {
  const doc = spec.document;
  const swagger2 = typeof doc.swagger === 'string';
  const operations: SpecOperation[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    if (typeof item !== 'object' || item === null) continue;
    const shared = asList(item.parameters);
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (typeof op !== 'object' || op === null) continue;
      const parameters = mergeParameters(shared, asList(op.parameters));
      const inputs = parameters.flatMap((p) => inputOf(p, swagger2));
      const body = swagger2 ? swaggerBody(parameters, op, doc) : openapiBody(op.requestBody as Json | undefined);
      const operationId = typeof op.operationId === 'string' && op.operationId.trim() ? op.operationId : undefined;
      operations.push({
        id: operationId ?? `${method.toUpperCase()} ${path}`,
        ...(operationId ? { operationId } : {}),
        method: method.toUpperCase(),
        path,
        ...text('summary', op.summary),
        ...text('description', op.description),
        inputs: inputs.filter((input) => input.in !== 'body'),
        ...(body ? { body } : {}),
        security: Array.isArray(op.security) ? (op.security as Json[]) : asList(doc.security),
        deprecated: op.deprecated === true,
      });
    }
  }
  return operations;
}

/** The operation's parameters over its path's, one per name and place. */
function mergeParameters(shared: Json[], own: Json[]): Json[] {
  const key = (p: Json): string => `${String(p.in)}:${String(p.name)}`;
  const merged = new Map(shared.map((p) => [key(p), p]));
  for (const p of own) merged.set(key(p), p);
  return [...merged.values()];
}

function inputOf(parameter: Json, swagger2: boolean): SpecInput[] {
  const where = String(parameter.in);
  if (!['path', 'query', 'header', 'cookie'].includes(where) || typeof parameter.name !== 'string') return [];
  // Swagger 2.0 puts the schema's keys on the parameter itself.
  const schema = swagger2 ? parameter : (((parameter.schema ?? firstContentSchema(parameter.content)) as Json) ?? {});
  return [
    {
      name: parameter.name,
      in: where as SpecInput['in'],
      required: where === 'path' || parameter.required === true,
      ...text('description', parameter.description),
      schema: schema ?? {},
    },
  ];
}

/** OpenAPI 3: JSON first, then a form, then any text; a body of another kind (a file upload) is left out. */
function openapiBody(requestBody: Json | undefined): SpecOperation['body'] {
  const content = requestBody?.content as Record<string, Json> | undefined;
  if (!content) return undefined;
  const types = Object.keys(content);
  const json = types.find((type) => /^application\/([\w.+-]+\+)?json\b/i.test(type));
  const form = types.find((type) => /^application\/x-www-form-urlencoded\b/i.test(type));
  const raw = types.find((type) => /^text\//i.test(type));
  const chosen = json ?? form ?? raw;
  if (!chosen) return undefined;
  return {
    type: chosen === json ? 'json' : chosen === form ? 'form' : 'raw',
    schema: (content[chosen].schema as Json | undefined) ?? {},
    required: requestBody?.required === true,
    ...text('description', requestBody?.description),
  };
}

/** Swagger 2.0: an `in: body` parameter (JSON), or `formData` parameters (a form). */
function swaggerBody(parameters: Json[], op: Json, doc: Json): SpecOperation['body'] {
  const body = parameters.find((p) => p.in === 'body');
  if (body) {
    return {
      type: 'json',
      schema: (body.schema as Json | undefined) ?? {},
      required: body.required === true,
      ...text('description', body.description),
    };
  }
  const fields = parameters.filter((p) => p.in === 'formData' && p.type !== 'file');
  if (fields.length === 0) return undefined;
  const consumes = asStrings(op.consumes ?? doc.consumes);
  const properties = Object.fromEntries(fields.map((field) => [String(field.name), field]));
  const required = fields.filter((field) => field.required === true).map((field) => String(field.name));
  return {
    type: consumes.some((type) => type.includes('json')) && !consumes.some((t) => t.includes('form')) ? 'json' : 'form',
    schema: { type: 'object', properties, required },
    required: required.length > 0,
  };
}

function firstContentSchema(content: unknown): Json | undefined {
  if (typeof content !== 'object' || content === null) return undefined;
  const first = Object.values(content as Record<string, Json>)[0];
  return first?.schema as Json | undefined;
}

function asList(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((item): item is Json => typeof item === 'object' && item !== null) : [];
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function text<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value.trim() !== '' ? ({ [key]: value.trim() } as Record<K, string>) : {};
}
