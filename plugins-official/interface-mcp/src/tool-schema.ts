import type { ParameterSpec, ToolDefinition } from 'factorly';

/**
 * The JSON Schema an MCP client sees for a tool: its own `inputSchema` when it has one (an
 * upstream MCP tool, passed through as the server declared it), else one built from its declared
 * parameters with their real types, so agents send numbers, booleans and objects, not strings.
 */
export function inputSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  if (tool.inputSchema) return tool.inputSchema;
  const required = tool.parameters.filter((p) => p.required && p.default === undefined).map((p) => p.name);
  return {
    type: 'object',
    properties: Object.fromEntries(tool.parameters.map((p) => [p.name, propertyOf(p)])),
    ...(required.length > 0 ? { required } : {}),
  };
}

function propertyOf(p: ParameterSpec): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  if (p.type === 'integer' || p.type === 'number' || p.type === 'boolean') schema.type = p.type;
  else if (p.type !== 'json') schema.type = 'string';
  if (p.description) schema.description = p.description;
  if (p.enum) schema.enum = p.type === 'integer' || p.type === 'number' ? p.enum.map(Number) : p.enum;
  if (p.default !== undefined) schema.default = p.default;
  if (p.min !== undefined) schema.minimum = p.min;
  if (p.max !== undefined) schema.maximum = p.max;
  if (p.minLength !== undefined) schema.minLength = p.minLength;
  if (p.maxLength !== undefined) schema.maxLength = p.maxLength;
  if (p.pattern !== undefined) schema.pattern = p.pattern;
  return schema;
}
