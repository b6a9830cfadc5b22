import type { JsonValue } from '../events/catalog.js';
import type { OutputContext, OutputProcessor } from './contracts/extensions.js';
import type { ToolResult } from './contracts/tool.js';

export interface ProcessedResult {
  output: string;
  error?: string;
  diagnostics?: string;
  structuredContent?: { [key: string]: JsonValue };
  /** True when at least one processor ran over the output. */
  processed: boolean;
}

/**
 * Runs every output processor, in order, over each text of a result: output, error, diagnostics,
 * and the JSON text of structured content (so scrubbers see it too). Structured content that a
 * processor leaves unparseable is dropped rather than returned half-scrubbed.
 */
export async function processResult(
  processors: readonly OutputProcessor[],
  result: ToolResult,
  base: Omit<OutputContext, 'stream'>,
): Promise<ProcessedResult> {
  let { output, error, diagnostics } = result;
  let structured = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
  for (const processor of processors) {
    output = await processor.process(output, { ...base, stream: 'output' });
    if (error) error = await processor.process(error, { ...base, stream: 'error' });
    if (diagnostics) diagnostics = await processor.process(diagnostics, { ...base, stream: 'diagnostics' });
    if (structured !== undefined) structured = await processor.process(structured, { ...base, stream: 'structured' });
  }
  return {
    output,
    error: error || undefined,
    diagnostics: diagnostics || undefined,
    structuredContent: parseObject(structured),
    processed: processors.length > 0,
  };
}

/** One text through every processor as a tool's `error` (a boot-time failure, outside any call). */
export async function processErrorText(processors: readonly OutputProcessor[], text: string, base: Omit<OutputContext, 'stream'>): Promise<string> {
  let out = text;
  for (const processor of processors) out = await processor.process(out, { ...base, stream: 'error' });
  return out;
}

function parseObject(text: string | undefined): { [key: string]: JsonValue } | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as JsonValue;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The same object without its undefined fields (keeps outcomes comparable with toEqual). */
export function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
