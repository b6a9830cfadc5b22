import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, type ContentBlock, type ToolDefinition, type ToolResult } from 'factorly';
import { startTestKernel, type TestKernel } from 'factorly/testing';
import { capContent } from '../src/content-cap.js';
import { plugin as outputPlugin } from '../src/plugin.js';
import { toolDefinition } from 'factorly/testing';

const tool = (settings: Partial<ToolDefinition> = {}): ToolDefinition => toolDefinition({ type: 'mcp', ...settings });
/** An image block of `bytes` decoded bytes. */
const image = (bytes: number): ContentBlock => ({
  type: 'image',
  mimeType: 'image/png',
  data: Buffer.alloc(bytes, 7).toString('base64'),
});

/** A tool type whose one call answers with the result a test gives it, as an upstream MCP server's would. */
function answering(result: ToolResult) {
  return definePlugin({
    id: 'answers',
    apiVersion: '1',
    register(registrar) {
      registrar.registerInit({
        deps: { providers: registrar.tokens.ToolProviders },
        init({ providers }, context) {
          providers.add('answers', { type: 'answers', keys: [], execute: async () => result }, context.pluginId);
        },
      });
    },
  });
}

const kernels: TestKernel[] = [];
afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.stop();
});

/** Calls a tool of `entry`'s settings whose result has these blocks, through a real kernel with the output plugin. */
async function run(entry: string, content: ContentBlock[], structuredContent?: Record<string, string>) {
  const result = { output: '', exitCode: 0, content, ...(structuredContent ? { structuredContent } : {}) };
  const test = await startTestKernel(`tools:\n  blocks: {type: answers${entry}}\n`, [outputPlugin, answering(result)]);
  kernels.push(test);
  const outcome = await test.call('blocks');
  expect(outcome.status, outcome.error).toBe('success');
  return outcome;
}

describe('output processing of MCP results', () => {
  it('leaves every block byte for byte alone with compress: none, and with max_output only (no cleaning)', async () => {
    const content: ContentBlock[] = [
      { type: 'text', text: 'a\n\n\n\n\x1b[31mred\x1b[0m { "x": 1 }\nsame\nsame' },
      image(10),
    ];
    expect((await run(', compress: none', content)).content).toEqual(content);
    expect((await run(', max_output: 10000', content)).content).toEqual(content);
  });

  it('compresses each text block on its own: a JSON block is compacted even beside prose', async () => {
    const result = await run(', compress: all', [
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
    const result = await run(', max_output: 1000', [
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
