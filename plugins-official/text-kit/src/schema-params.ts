// A JSON Schema property as a tool parameter: factorly (an OpenAPI operation's parameters and body
// fields) and the MCP provider (an upstream tool's inputSchema) map schemas the same way, from here.

type Schema = Record<string, unknown>;

/** The parameter types a schema maps to (a subset of factorly's `ParamType`). */
export type SchemaParamType = 'string' | 'integer' | 'number' | 'boolean' | 'json' | 'enum';

/** A parameter as a schema describes it (assignable to factorly's `ParameterSpec`). */
export interface SchemaParameter {
  name: string;
  type: SchemaParamType;
  required: boolean;
  description?: string;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: string[];
}

/**
 * One parameter per top-level property of an object schema (an upstream tool's `inputSchema`), with
 * `required` from the schema's list; a property with no type at all becomes `untyped`.
 */
export function parametersFromSchema(schema: Schema | undefined, untyped: SchemaParamType): SchemaParameter[] {
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = Array.isArray(schema?.required) ? schema.required.map(String) : [];
  return Object.entries(properties).map(([name, raw]) =>
    parameterFromSchema(name, isRecord(raw) ? raw : {}, required.includes(name), untyped),
  );
}

/**
 * One parameter from a property's JSON Schema, with its real type, required flag, enum and limits.
 * Objects, arrays and unions become `json`, so their values are forwarded as JSON, never as text;
 * a property with no type at all becomes `untyped` (`string` for an OpenAPI query or header value,
 * which is text on the wire; `json` for an MCP tool's argument).
 */
export function parameterFromSchema(
  name: string,
  property: Schema,
  required: boolean,
  untyped: SchemaParamType,
): SchemaParameter {
  const spec: SchemaParameter = { name, type: typeOf(property, untyped), required };
  if (typeof property.description === 'string') spec.description = property.description;
  const numbers = [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minLength', 'minLength'],
    ['maxLength', 'maxLength'],
  ] as const;
  for (const [key, field] of numbers) if (typeof property[key] === 'number') spec[field] = property[key];
  if (typeof property.pattern === 'string' && compiles(property.pattern)) spec.pattern = property.pattern;
  if (
    Array.isArray(property.enum) &&
    spec.type !== 'json' &&
    property.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  ) {
    spec.enum = property.enum.map(String);
    if (spec.type === 'string') spec.type = 'enum';
  }
  return spec;
}

function typeOf(property: Schema, untyped: SchemaParamType): SchemaParamType {
  if (property.type === undefined) {
    const structured = ['properties', 'items', 'allOf', 'anyOf', 'oneOf'].some((key) => property[key] !== undefined);
    return structured ? 'json' : untyped;
  }
  const declared = Array.isArray(property.type) ? property.type.filter((t) => t !== 'null') : [property.type];
  if (declared.length !== 1) return 'json';
  switch (declared[0]) {
    case 'string':
      return 'string';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'json';
  }
}

/** Our pattern check runs with the `u` flag; a pattern that does not compile so is left to the server. */
function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
