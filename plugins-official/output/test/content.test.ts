import { describe, expect, it } from 'vitest';
import type { ContentBlock, ToolDefinition } from '../../../src/plugins/index.js';
import { processResult } from '../../../src/kernel/process-output.js';
import { capContent } from '../src/content-cap.js';
import { cleanProcessor, compressProcessor, filterProcessor, truncateProcessor } from '../src/processors.js';
import { toolDefinition } from '../../../test/helpers/tool-definition.js';

const PROCESSORS = [cleanProcessor, filterProcessor, compressProcessor, truncateProcessor];
const tool = (settings: Partial<ToolDefinition> = {}): ToolDefinition => toolDefinition({ type: 'mcp', ...settings });
/** An image block of `bytes` decoded bytes. */
const image = (bytes: number): ContentBlock => ({
  type: 'image',
  mimeType: 'image/png',
  data: Buffer.alloc(bytes, 7).toString('base64'),
});
const run = (settings: Partial<ToolDefinition>, content: ContentBlock[], structuredContent?: Record<string, string>) =>
  processResult(
    PROCESSORS,
    { output: '', exitCode: 0, content, ...(structuredContent ? { structuredContent } : {}) },
    { tool: tool(settings), secrets: new Map() },
  );

describe('output processing of MCP results', () => {
  it('leaves every block byte for byte alone with compress: none, and with max_output only (no cleaning)', async () => {
    const content: ContentBlock[] = [
      { type: 'text', text: 'a\n\n\n\n\x1b[31mred\x1b[0m { "x": 1 }\nsame\nsame' },
      image(10),
    ];
    expect((await run({ settings: { compress: 'none' } }, content)).content).toEqual(content);
    expect((await run({ maxOutput: 10_000 }, content)).content).toEqual(content);
  });

  it('compresses each text block on its own: a JSON block is compacted even beside prose', async () => {
    const result = await run({ settings: { compress: 'all' } }, [
      { type: 'text', text: '{ "a": [1, 2] }' },
      { type: 'text', text: 'x\nx\nx\n\n\n\ny' },
      image(4),
    ]);
    expect(result.content).toEqual([
      { type: 'text', text: '{"a":[1,2]}' },
      { type: 'text', text: 'x [repeated 3 times]\n\ny' },
      image(4),
    ]);
  });

  it('shares max_output between the blocks: text is cut with a marker, a binary block is never cut but replaced by a note', async () => {
    const result = await run({ maxOutput: 1000 }, [
      { type: 'text', text: 'é'.repeat(300) },
      image(600),
      { type: 'text', text: 'z'.repeat(2000) },
    ]);
    const [first, second, third] = result.content!;
    expect(first).toEqual({ type: 'text', text: 'é'.repeat(300) });
    expect(second).toEqual({
      type: 'text',
      text: '[factorly: dropped an image block (image/png, 600 bytes): it is over what is left of max_output (400 of 1000 bytes)]',
    });
    expect(Buffer.byteLength(String(third!.text))).toBeLessThanOrEqual(400);
    expect(third!.text).toMatch(/^z+\n\n\[\.\.\. truncated \d+ bytes \.\.\.\]\n\nz+$/);
  });

  it('keeps a binary block that fits, and names an embedded resource it has to drop', () => {
    const resource: ContentBlock = {
      type: 'resource',
      resource: { uri: 'file:///big.bin', mimeType: 'application/zip', blob: Buffer.alloc(3000).toString('base64') },
    };
    expect(capContent({ content: [image(100)] }, tool(), 100).content).toEqual([image(100)]);
    expect(capContent({ content: [resource] }, tool(), 1000).content).toEqual([
      {
        type: 'text',
        text: '[factorly: dropped the resource file:///big.bin (application/zip, 3000 bytes): it is over what is left of max_output (1000 of 1000 bytes)]',
      },
    ]);
  });

  it('drops structured content over max_output with a note; when the tool has an output schema, the result becomes an error', () => {
    const big = { content: [{ type: 'text', text: 'ok' }], structuredContent: { blob: 'y'.repeat(200) } };
    const plain = capContent(big, tool(), 100);
    expect(plain).toEqual({
      content: [
        { type: 'text', text: 'ok' },
        {
          type: 'text',
          text: '[factorly: dropped the structured content (211 bytes): it is over max_output (100 bytes)]',
        },
      ],
    });
    const schema = capContent(big, tool({ outputSchema: { type: 'object' } }), 100);
    expect(schema.structuredContent).toBeUndefined();
    expect(schema.error).toBe(
      "the structured content (211 bytes) was dropped: it is over max_output (100 bytes), and this tool's output schema requires it",
    );
    expect(capContent(big, tool({ outputSchema: { type: 'object' } }), 1000)).toEqual(big);
  });
});
