import type { ContentBlock, JsonValue, ToolResult } from 'factorly';

export interface UpstreamResult {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
  /** Older servers answer with `toolResult` instead of content. */
  toolResult?: unknown;
}

type Json = { [key: string]: JsonValue };

/**
 * An upstream `CallToolResult` as a factorly result: its content blocks as they came (each with its
 * annotations and `_meta`), its structured content and `_meta` beside them; the kernel derives the
 * text output from the blocks. `isError` becomes exit code 1, with the texts as the error.
 */
export function toToolResult(result: UpstreamResult): ToolResult {
  const content = Array.isArray(result.content)
    ? result.content
    : result.toolResult === undefined
      ? []
      : [{ type: 'text', text: JSON.stringify(result.toolResult) }];
  const parts = {
    output: '',
    content,
    ...(isRecord(result.structuredContent) ? { structuredContent: result.structuredContent as Json } : {}),
    ...(isRecord(result._meta) ? { meta: result._meta as Json } : {}),
  };
  if (!result.isError) return { ...parts, exitCode: 0 };
  const text = content
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text ?? ''))
    .join('\n');
  return { ...parts, error: text || 'the upstream tool reported an error', exitCode: 1 };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
