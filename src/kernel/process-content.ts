import type { JsonValue } from '../events/catalog.js';
import type { ContentResult, OutputContext, OutputProcessor } from '../contracts/extensions.js';
import type { ContentBlock } from '../contracts/tool.js';

type Base = Omit<OutputContext, 'stream'>;
type JsonObject = { [key: string]: JsonValue };

/**
 * Output processing for an MCP result, block by block: each text block's text is processed as
 * output text (so a shaping stage works on one block, never across two), every other part
 * (the rest of a text block, image/audio/resource blocks, structured content, the result's `_meta`)
 * as JSON on the `structured` stream, which shaping stages leave alone and scrubbers read. A stage
 * that declares `processContent` sees the whole result instead. A part a processor leaves
 * unreadable is withheld with a note rather than returned half-processed.
 */
export async function processContent(
  processors: readonly OutputProcessor[],
  result: ContentResult,
  base: Base,
): Promise<ContentResult> {
  let current = result;
  for (const processor of processors) {
    if (processor.processContent) {
      current = await processor.processContent(current, { ...base, stream: 'output' });
      continue;
    }
    const content = await Promise.all(current.content.map((block) => blockThrough(processor, block, base)));
    const structuredContent =
      current.structuredContent && (await jsonThrough(processor, current.structuredContent, base));
    const meta = current.meta && (await jsonThrough(processor, current.meta, base));
    current = {
      content,
      ...(structuredContent ? { structuredContent } : {}),
      ...(meta ? { meta } : {}),
      ...(current.error ? { error: current.error } : {}),
    };
  }
  return current;
}

/** What an MCP result says as text: its text blocks joined by newlines, or the JSON of all its blocks when some are not text. */
export function contentText(content: readonly ContentBlock[]): string {
  if (content.every((block) => block.type === 'text'))
    return content.map((block) => String(block.text ?? '')).join('\n');
  return JSON.stringify(content);
}

async function blockThrough(processor: OutputProcessor, block: ContentBlock, base: Base): Promise<ContentBlock> {
  if (block.type === 'text' && typeof block.text === 'string') {
    const { text, ...rest } = block;
    const processedText = await processor.process(text, { ...base, stream: 'output' });
    const others = Object.keys(rest).length > 1 ? await jsonThrough(processor, rest, base) : rest;
    return others ? { ...others, type: 'text', text: processedText } : withheld(block.type);
  }
  return ((await jsonThrough(processor, block, base)) as ContentBlock | undefined) ?? withheld(block.type);
}

/** One JSON part through a processor; the same object when it changed nothing, undefined when it left it unreadable. */
async function jsonThrough<T extends JsonObject>(
  processor: OutputProcessor,
  value: T,
  base: Base,
): Promise<T | undefined> {
  const text = JSON.stringify(value);
  const processed = await processor.process(text, { ...base, stream: 'structured' });
  if (processed === text) return value;
  try {
    const parsed = JSON.parse(processed) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as T) : undefined;
  } catch {
    return undefined;
  }
}

function withheld(type: string): ContentBlock {
  return { type: 'text', text: `[factorly: withheld one "${type}" block: output processing left it unreadable]` };
}
