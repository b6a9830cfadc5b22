import type { ParameterSpec, ToolDefinition } from 'factorly';

const INPUT_CUT = 1_000;

function typeOf(spec: ParameterSpec): string {
  switch (spec.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'json':
      return 'unknown';
    case 'enum':
      return spec.enum && spec.enum.length > 0 ? spec.enum.map((value) => JSON.stringify(value)).join(' | ') : 'string';
    default:
      return 'string';
  }
}

function optional(spec: ParameterSpec): boolean {
  return !spec.required || spec.default !== undefined;
}

/** The input type on one line, without documentation: `{ name: string; limit?: number }`. */
export function inputType(tool: ToolDefinition): { input: string; inputTruncated?: true } {
  if (tool.parameters.length === 0) return { input: '{}' };
  const text = `{ ${tool.parameters.map((spec) => `${spec.name}${optional(spec) ? '?' : ''}: ${typeOf(spec)}`).join('; ')} }`;
  if (text.length <= INPUT_CUT) return { input: text };
  return { input: text.slice(0, INPUT_CUT - 1) + '…', inputTruncated: true };
}

/** The full signature with a JSDoc line per parameter, as `tools.search.describe` returns it. */
export function signature(tool: ToolDefinition): string {
  if (tool.parameters.length === 0) return '(input: {}): Promise<unknown>';
  const lines = tool.parameters.map((spec) => {
    const doc = documentation(spec);
    const declaration = `  ${spec.name}${optional(spec) ? '?' : ''}: ${typeOf(spec)};`;
    return doc ? `  /** ${doc} */\n${declaration}` : declaration;
  });
  return `(input: {\n${lines.join('\n')}\n}): Promise<unknown>`;
}

function documentation(spec: ParameterSpec): string {
  const parts: string[] = [];
  if (spec.description) parts.push(spec.description.replace(/\*\//g, '*\\/'));
  if (spec.default !== undefined) parts.push(`@default ${JSON.stringify(spec.default)}`);
  if (spec.type === 'integer') parts.push('@integer');
  if (spec.min !== undefined) parts.push(`@minimum ${spec.min}`);
  if (spec.max !== undefined) parts.push(`@maximum ${spec.max}`);
  if (spec.minLength !== undefined) parts.push(`@minLength ${spec.minLength}`);
  if (spec.maxLength !== undefined) parts.push(`@maxLength ${spec.maxLength}`);
  if (spec.pattern !== undefined) parts.push(`@pattern ${spec.pattern}`);
  return parts.join(' ');
}
