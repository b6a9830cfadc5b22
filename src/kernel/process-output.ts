import type { JsonValue } from '../events/catalog.js';
import type { OutputContext, OutputProcessor } from '../contracts/extensions.js';
import type { ContentBlock, ToolResult } from '../contracts/tool.js';
import { contentText, processContent } from './process-content.js';

export interface ProcessedResult {
  output: string;
  /** The output before processing (for an MCP result, what its blocks said as text). */
  originalOutput: string;
  error?: string;
  diagnostics?: string;
  content?: ContentBlock[];
  meta?: { [key: string]: JsonValue };
  structuredContent?: { [key: string]: JsonValue };
  /** True when at least one processor ran over the output. */
  processed: boolean;
}

/**
 * Runs every output processor, in order, over each text of a result: output, error, diagnostics,
 * and the JSON text of structured content (so scrubbers see it too). Structured content that a
 * processor leaves unparseable is dropped rather than returned half-scrubbed. An MCP result's
 * blocks are processed one by one (see processContent); its output is what they then say as text.
 */
export async function processResult(
  processors: readonly OutputProcessor[],
  result: ToolResult,
  base: Omit<OutputContext, 'stream'>,
): Promise<ProcessedResult> {
  if (result.content) return processMcpResult(processors, { ...result, content: result.content }, base);
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
    originalOutput: result.output,
    error: error || undefined,
    diagnostics: diagnostics || undefined,
    structuredContent: parseObject(structured),
    processed: processors.length > 0,
  };
}

async function processMcpResult(
  processors: readonly OutputProcessor[],
  result: ToolResult & { content: ContentBlock[] },
  base: Omit<OutputContext, 'stream'>,
): Promise<ProcessedResult> {
  let { error, diagnostics } = result;
  for (const processor of processors) {
    if (error) error = await processor.process(error, { ...base, stream: 'error' });
    if (diagnostics) diagnostics = await processor.process(diagnostics, { ...base, stream: 'diagnostics' });
  }
  const {
    content,
    structuredContent,
    meta,
    error: withheld,
  } = await processContent(
    processors,
    definedOnly({ content: result.content, structuredContent: result.structuredContent, meta: result.meta }) as {
      content: ContentBlock[];
    },
    base,
  );
  return {
    output: contentText(content),
    originalOutput: contentText(result.content),
    error: error || withheld || undefined,
    diagnostics: diagnostics || undefined,
    content,
    meta,
    structuredContent,
    processed: processors.length > 0,
  };
}

/** One text through every processor as a tool's `error` (a boot-time failure, outside any call). */
export async function processErrorText(
  processors: readonly OutputProcessor[],
  text: string,
  base: Omit<OutputContext, 'stream'>,
): Promise<string> {
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
