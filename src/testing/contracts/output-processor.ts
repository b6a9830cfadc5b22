import type { ContentBlock, ToolDefinition } from '../../contracts/tool.js';
import type { OutputContext, OutputProcessor } from '../../contracts/extensions.js';
import { assert, type TestApi } from '../suite.js';
import { toolDefinition } from '../tool-definition.js';

export interface OutputProcessorSubject {
  processor: OutputProcessor;
  /** What a tool that asks for this processing sets (`settings: {compress: all}`, `maxOutput`). */
  asks?: Partial<ToolDefinition>;
  /**
   * The processor acts only on tools that ask for it (default). A scrubber acts on every tool, when
   * the call resolved secrets: say `false`.
   */
  optIn?: boolean;
}

const TOOL: ToolDefinition = toolDefinition({ source: { file: 'contract', line: 1 } });
const STREAMS = ['output', 'error', 'diagnostics', 'structured', 'event'] as const;
const SAMPLES = [
  '',
  'plain text\n',
  '{ "a": [1, 2, 3], "b": { "c": "d" } }',
  'ünïcödé ✓ 🚀 '.repeat(500),
  '\x1b[31mred\x1b[0m\n\n\n\nline\nline\nline\n',
  'x'.repeat(200_000),
];

/**
 * What every `OutputProcessor` must do: a name and an order; a string for every stream and sample
 * (empty, unicode, ANSI, 200 kB), the same one each time; text it leaves whole as valid as it came
 * (no broken characters); nothing done to a tool that asks for nothing (unless it acts on every tool);
 * and, when it takes whole MCP results, binary blocks never cut into text.
 */
export function outputProcessorContract(test: TestApi, subject: OutputProcessorSubject): void {
  const { describe, it } = test;
  const { processor } = subject;
  const asking: ToolDefinition = { ...TOOL, ...subject.asks };
  const context = (tool: ToolDefinition, stream: OutputContext['stream']): OutputContext => ({
    tool,
    secrets: new Map(),
    stream,
    params: {},
  });
  describe(`OutputProcessor contract: ${processor.name}`, () => {
    it('has a name and an order', () => {
      assert.ok(processor.name.trim() !== '');
      assert.ok(Number.isFinite(processor.order));
    });

    it('turns every sample on every stream into a string, the same one each time, never breaking a character', async () => {
      for (const stream of STREAMS) {
        for (const text of SAMPLES) {
          const once = await processor.process(text, context(asking, stream));
          assert.equal(typeof once, 'string', `${stream}: not a string`);
          assert.equal(await processor.process(text, context(asking, stream)), once, `${stream}: not the same twice`);
          assert.ok(!once.includes('\uFFFD') || text.includes('\uFFFD'), `${stream}: a character was broken`);
        }
      }
    });

    if (subject.optIn !== false) {
      it('leaves the output of a tool that asks for nothing as it is', async () => {
        for (const text of SAMPLES) assert.equal(await processor.process(text, context(TOOL, 'output')), text);
      });
    }

    if (!processor.processContent) return;
    it('never cuts a binary block into text: it stays whole or is replaced by a note', async () => {
      const data = Buffer.alloc(300_000, 7).toString('base64');
      const image: ContentBlock = { type: 'image', mimeType: 'image/png', data };
      const result = await processor.processContent!(
        { content: [{ type: 'text', text: 'before' }, image] },
        context(asking, 'output'),
      );
      for (const block of result.content) {
        if (block.type === 'image') assert.equal(block.data, data, 'an image block was changed');
        if (block.type === 'text')
          assert.ok(!String(block.text).includes(data.slice(0, 64)), 'a binary block became text');
      }
    });
  });
}
