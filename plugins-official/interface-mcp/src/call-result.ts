import type { CallOutcome } from 'factorly';

type Content = { type: string; [key: string]: unknown };

export interface McpCallResult {
  [key: string]: unknown;
  content: Content[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/**
 * A call's outcome as an MCP tool result. An upstream MCP tool's result goes back as it came: its
 * blocks (after any output processing the tool is configured with), structured content and `_meta`;
 * a failure says so with `isError`, in the upstream's own words. Any other tool's output goes back
 * as text; a failed or blocked call is `isError` and keeps its output (unlike the reference, which
 * drops stdout) followed by the error.
 */
export function toMcpResult(outcome: CallOutcome): McpCallResult {
  const failed = outcome.status !== 'success';
  if (outcome.content) {
    const extras = {
      ...(outcome.structuredContent ? { structuredContent: outcome.structuredContent } : {}),
      ...(outcome.meta ? { _meta: outcome.meta } : {}),
    };
    // A result that processing made an error (structured content withheld) explains itself in a note of its own.
    return { content: outcome.content, ...extras, ...(failed ? { isError: true } : {}) };
  }
  const content = outcome.output === '' && failed ? [] : [{ type: 'text', text: outcome.output }];
  const structuredContent = outcome.structuredContent ?? jsonObjectOf(outcome);
  const structured = structuredContent ? { structuredContent } : {};
  if (!failed) return { content, ...structured };
  const error = outcome.error ?? `exit code ${outcome.exitCode}`;
  return { content: [...content, { type: 'text', text: error }], isError: true, ...structured };
}

/**
 * A successful text output that is one JSON object is also given as structured content, so a
 * client can use the fields without parsing text (the text stays, for clients that read only it).
 */
function jsonObjectOf(outcome: CallOutcome): Record<string, unknown> | undefined {
  if (outcome.status !== 'success') return undefined;
  const text = outcome.output.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
