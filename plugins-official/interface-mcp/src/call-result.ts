import type { CallOutcome } from 'factorly';

type Content = { type: string; [key: string]: unknown };

export interface McpCallResult {
  [key: string]: unknown;
  content: Content[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/**
 * A call's outcome as an MCP tool result. Output that is MCP content (an upstream tool's images,
 * resources) goes back as that content; text goes back as text. A failed or blocked call is
 * `isError` and keeps its output (unlike the reference, which drops stdout) followed by the error.
 */
export function toMcpResult(outcome: CallOutcome): McpCallResult {
  const content = outputContent(outcome);
  const structuredContent = outcome.structuredContent ?? jsonObjectOf(outcome);
  const structured = structuredContent ? { structuredContent } : {};
  if (outcome.status === 'success') return { content, ...structured };
  const error = outcome.error ?? `exit code ${outcome.exitCode}`;
  return { content: [...content, { type: 'text', text: error }], isError: true, ...structured };
}

function outputContent(outcome: CallOutcome): Content[] {
  if (outcome.outputFormat === 'mcp-content') {
    const parsed = parseContent(outcome.output);
    if (parsed) return parsed;
  }
  return outcome.output === '' && outcome.status !== 'success' ? [] : [{ type: 'text', text: outcome.output }];
}

/**
 * A successful text output that is one JSON object is also given as structured content, so a
 * client can use the fields without parsing text (the text stays, for clients that read only it).
 */
function jsonObjectOf(outcome: CallOutcome): Record<string, unknown> | undefined {
  if (outcome.status !== 'success' || outcome.outputFormat === 'mcp-content') return undefined;
  const text = outcome.output.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The content array back from its JSON; undefined when processing (truncation) left it unreadable. */
function parseContent(text: string): Content[] | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) && value.every((item) => typeof item === 'object' && item !== null && typeof item.type === 'string') ? (value as Content[]) : undefined;
  } catch {
    return undefined;
  }
}
