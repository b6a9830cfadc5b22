import type { ParameterSpec, ParamType } from './tool-definition.js';

type Schema = Record<string, unknown>;

/**
 * One parameter from a property's JSON Schema (an OpenAPI operation's parameter or body field), with its real type, required flag, enum and limits.
 * Objects, arrays and unions become `json`, so their values are forwarded as JSON, never as text;
 * a property with no type at all becomes `untyped` (`string` for an OpenAPI query or header value,
 * which is text on the wire). The MCP provider maps an upstream tool's `inputSchema` the same way in
 * its own `schema-params.ts`: a plugin reaches factorly for types only, so it cannot call this one.
 */
export function parameterFromSchema(
  name: string,
  property: Schema,
  required: boolean,
  untyped: ParamType,
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
