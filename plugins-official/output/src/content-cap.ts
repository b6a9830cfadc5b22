import type { ContentBlock, ContentResult, ToolDefinition } from 'factorly';
import { truncateMiddle } from './truncate.js';

/**
 * `max_output` over an MCP result. Its blocks share the budget in order: a text block is cut in the
 * middle with a marker, as plain output is; a binary block (image, audio, an embedded resource) is
 * never cut into text: when it is bigger than what is left, one text block says what was dropped and
 * why. Structured content bigger than the cap is dropped with a note; when the tool declares an
 * output schema the result becomes an error, since clients refuse a success without it.
 */
export function capContent(result: ContentResult, tool: ToolDefinition, maxBytes: number): ContentResult {
  let left = maxBytes;
  const content = result.content.map((block): ContentBlock => {
    const size = sizeOf(block);
    if (size <= left) {
      left -= size;
      return block;
    }
    if (block.type === 'text' && typeof block.text === 'string' && left > 0) {
      const text = truncateMiddle(block.text, left);
      left -= Buffer.byteLength(text, 'utf8');
      return { ...block, text };
    }
    return note(
      `dropped ${describe(block, size)}: it is over what is left of max_output (${left} of ${maxBytes} bytes)`,
    );
  });
  const structuredBytes =
    result.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.structuredContent), 'utf8');
  if (structuredBytes <= maxBytes) return { ...result, content };
  const why = `it is over max_output (${maxBytes} bytes)`;
  const { structuredContent: _dropped, ...rest } = result;
  const error = tool.outputSchema
    ? {
        error: `the structured content (${structuredBytes} bytes) was dropped: ${why}, and this tool's output schema requires it`,
      }
    : {};
  return {
    ...rest,
    content: [...content, note(`dropped the structured content (${structuredBytes} bytes): ${why}`)],
    ...error,
  };
}

/** What a block weighs: text in UTF-8 bytes, binary data decoded, anything else as its JSON. */
function sizeOf(block: ContentBlock): number {
  if (block.type === 'text' && typeof block.text === 'string') return Buffer.byteLength(block.text, 'utf8');
  if (typeof block.data === 'string') return Buffer.byteLength(block.data, 'base64');
  const resource = block.resource as { blob?: unknown; text?: unknown } | undefined;
  if (typeof resource?.blob === 'string') return Buffer.byteLength(resource.blob, 'base64');
  if (typeof resource?.text === 'string') return Buffer.byteLength(resource.text, 'utf8');
  return Buffer.byteLength(JSON.stringify(block), 'utf8');
}

function describe(block: ContentBlock, size: number): string {
  const resource = block.resource as { uri?: unknown; mimeType?: unknown } | undefined;
  const mimeType = block.mimeType ?? resource?.mimeType;
  const what =
    resource?.uri === undefined
      ? `${/^[aeiou]/i.test(block.type) ? 'an' : 'a'} ${block.type} block`
      : `the resource ${String(resource.uri)}`;
  return `${what} (${mimeType === undefined ? '' : `${String(mimeType)}, `}${size} bytes)`;
}

function note(text: string): ContentBlock {
  return { type: 'text', text: `[factorly: ${text}]` };
}
