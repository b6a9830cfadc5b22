import type { ParameterSpec, ParamType } from './tool-definition.js';

type Schema = Record<string, unknown>;

/**
 * Our parameter list for a JSON Schema of an object (an upstream MCP tool's `inputSchema`): one
 * parameter per top-level property (`parameterFromSchema`).
 */
export function parametersFromSchema(schema: Schema | undefined): ParameterSpec[] {
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = Array.isArray(schema?.required) ? schema.required.map(String) : [];
  return Object.entries(properties).map(([name, raw]) =>
    parameterFromSchema(name, isRecord(raw) ? raw : {}, required.includes(name)),
  );
}

/**
 * One parameter from a property's JSON Schema, with its real type, required flag, enum and limits.
 * Objects, arrays and unions become `json`, so their values are forwarded as JSON, never as text;
 * a property with no type at all becomes `untyped` (`json` for an MCP tool, which may take anything;
 * `string` for an OpenAPI query or header value, which is text on the wire).
 */
export function parameterFromSchema(
  name: string,
  property: Schema,
  required: boolean,
  untyped: ParamType = 'json',
): ParameterSpec {
  const spec: ParameterSpec = { name, type: typeOf(property, untyped), required };
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

function typeOf(property: Schema, untyped: ParamType): ParamType {
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
