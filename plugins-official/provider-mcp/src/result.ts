import type { JsonValue, ToolResult } from 'factorly';

interface ContentItem {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface UpstreamResult {
  content?: ContentItem[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** Older servers answer with `toolResult` instead of content. */
  toolResult?: unknown;
}

/**
 * An upstream `CallToolResult` as a factorly result. Only text → the texts joined by newlines.
 * Anything else (images, audio, resources, resource links) → `outputFormat: 'mcp-content'` with
 * the JSON of the whole content array as output, so nothing is lost and an MCP interface can
 * return the same content. `structuredContent` rides along; `isError` becomes exit code 1 with
 * the text as the error (the output keeps non-text content).
 */
export function toToolResult(result: UpstreamResult): ToolResult {
  const content = Array.isArray(result.content) ? result.content : result.toolResult === undefined ? [] : [{ type: 'text', text: JSON.stringify(result.toolResult) }];
  const onlyText = content.every((item) => item.type === 'text');
  const text = content.filter((item) => item.type === 'text').map((item) => item.text ?? '').join('\n');
  const structured = isRecord(result.structuredContent) ? { structuredContent: result.structuredContent as { [key: string]: JsonValue } } : {};
  const output = onlyText ? { output: text } : { output: JSON.stringify(content), outputFormat: 'mcp-content' as const };
  if (result.isError) {
    return { ...output, ...(onlyText ? { output: '' } : {}), error: text || 'the upstream tool reported an error', exitCode: 1, ...structured };
  }
  return { ...output, exitCode: 0, ...structured };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
