import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type { ToolDefinition } from 'factorly';
import { inputSchemaOf } from './tool-schema.js';

export interface McpToolEntry {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * A tool as `tools/list` shows it. An upstream MCP tool is listed exactly as its server declared it
 * (title, annotations, output schema, execution, icons, `_meta`), under the name factorly serves it
 * by; any other tool with its description and the schema of its parameters. What factorly adds is
 * namespaced in `_meta`: `factorly/confirm` when a person must approve each call, `factorly/rateLimit`
 * with the limit that applies.
 */
export function toolEntry(tool: ToolDefinition, policies?: ShadowPolicies): McpToolEntry {
  const entry: McpToolEntry = tool.declared
    ? { ...(tool.declared as McpToolEntry), name: tool.name }
    : {
        name: tool.name,
        description: tool.description,
        inputSchema: inputSchemaOf(tool) as McpToolEntry['inputSchema'],
      };
  const governance = policies ? governanceOf(tool, policies) : {};
  if (Object.keys(governance).length === 0) return entry;
  return { ...entry, _meta: { ...(entry._meta as Record<string, unknown> | undefined), ...governance } };
}

function governanceOf(tool: ToolDefinition, policies: ShadowPolicies): Record<string, unknown> {
  const { rateLimit } = policies.of(tool);
  return {
    ...(policies.confirms(tool) ? { 'factorly/confirm': true } : {}),
    ...(rateLimit ? { 'factorly/rateLimit': rateLimit.text } : {}),
  };
}
