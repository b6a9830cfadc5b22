import type { ParameterSpec, ParamType } from 'factorly';

type Schema = Record<string, unknown>;

/**
 * Our parameter list for an upstream tool's JSON Schema: one parameter per top-level property
 * with its real type, required flag, enum and limits. Objects, arrays, unions and untyped
 * properties become `json`, so their values are forwarded as JSON, never as text. The full
 * schema is kept on the definition (`inputSchema`) for interfaces to expose as it is.
 */
export function parametersFromSchema(schema: Schema | undefined): ParameterSpec[] {
  const properties = isRecord(schema?.properties) ? schema.properties : {};
  const required = Array.isArray(schema?.required) ? schema.required.map(String) : [];
  return Object.entries(properties).map(([name, raw]) =>
    toParameter(name, isRecord(raw) ? raw : {}, required.includes(name)),
  );
}

function toParameter(name: string, property: Schema, required: boolean): ParameterSpec {
  const spec: ParameterSpec = { name, type: typeOf(property), required };
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

function typeOf(property: Schema): ParamType {
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
