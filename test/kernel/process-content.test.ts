import { describe, expect, it } from 'vitest';
import type { ContentResult, OutputProcessor } from '../../src/contracts/extensions.js';
import type { ContentBlock, ToolDefinition } from '../../src/contracts/tool.js';
import { contentText } from '../../src/kernel/process-content.js';
import { processResult } from '../../src/kernel/process-output.js';
import { toolDefinition } from '../helpers/tool-definition.js';

const tool: ToolDefinition = toolDefinition({ type: 'mcp' });
const base = { tool, secrets: new Map([['vault:K', 's3cret']]) };
const IMAGE: ContentBlock = {
  type: 'image',
  data: 'aGVsbG8=',
  mimeType: 'image/png',
  annotations: { audience: ['user'] },
};

describe('processing an MCP result block by block', () => {
  it('gives a processor each text block on its own, and every other part as JSON on the structured stream', async () => {
    const seen: [string, string][] = [];
    const upper: OutputProcessor = {
      name: 'upper',
      order: 0,
      process: (text, context) => {
        seen.push([context.stream!, text]);
        return context.stream === 'output' ? text.toUpperCase() : text.replaceAll('s3cret', '****');
      },
    };
    const content: ContentBlock[] = [
      { type: 'text', text: 'one s3cret', annotations: { priority: 1 } },
      IMAGE,
      { type: 'text', text: 'two' },
    ];
    const result = await processResult(
      [upper],
      { output: '', exitCode: 0, content, structuredContent: { token: 's3cret' }, meta: { trace: 's3cret' } },
      base,
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'ONE S3CRET', annotations: { priority: 1 } },
      IMAGE,
      { type: 'text', text: 'TWO' },
    ]);
    expect(result.structuredContent).toEqual({ token: '****' });
    expect(result.meta).toEqual({ trace: '****' });
    expect(seen.filter(([stream]) => stream === 'output').map(([, text]) => text)).toEqual(['one s3cret', 'two']);
    expect(seen).toContainEqual(['structured', JSON.stringify(IMAGE)]);
    expect(result.output).toBe(contentText(result.content!));
    expect(result.originalOutput).toBe(JSON.stringify(content));
  });

  it('withholds a block a processor leaves unreadable, saying so, instead of returning it half-processed', async () => {
    const mangle: OutputProcessor = {
      name: 'mangle',
      order: 0,
      process: (text, context) => (context.stream === 'structured' ? text.slice(1) : text),
    };
    const result = await processResult(
      [mangle],
      { output: '', exitCode: 0, content: [{ type: 'text', text: 'kept' }, IMAGE] },
      base,
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'kept' },
      { type: 'text', text: '[factorly: withheld one "image" block: output processing left it unreadable]' },
    ]);
  });

  it('hands the whole result to a stage that declares processContent, in its turn, and takes the error it sets', async () => {
    const order: string[] = [];
    const first: OutputProcessor = { name: 'first', order: 0, process: (text) => (order.push('first'), text) };
    const whole: OutputProcessor = {
      name: 'whole',
      order: 1,
      process: () => {
        throw new Error('not called for an MCP result');
      },
      processContent: (result: ContentResult) => {
        order.push(`whole:${result.content.length}`);
        return { content: [{ type: 'text', text: 'cut' }], error: 'withheld something' };
      },
    };
    const result = await processResult(
      [first, whole],
      {
        output: '',
        exitCode: 0,
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      base,
    );
    expect(order).toEqual(['first', 'first', 'whole:2']);
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'cut' }],
      output: 'cut',
      error: 'withheld something',
    });
  });

  it('says a result as text: text blocks joined by newlines, else the JSON of the blocks', () => {
    expect(
      contentText([
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('a\nb');
    expect(contentText([{ type: 'text', text: 'a' }, IMAGE])).toBe(
      JSON.stringify([{ type: 'text', text: 'a' }, IMAGE]),
    );
  });
});
