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
  // Emoji are two UTF-16 units: wherever a processor cuts these, one of the two cuts inside one.
  '🚀'.repeat(100_001),
  `a${'🚀'.repeat(100_000)}`,
];

/** A secret the call resolved, for a processor that acts on every tool when a call has secrets (`optIn: false`). */
const SECRET = { reference: 'vault:CONTRACT_SECRET', value: 'contract-s3cr3t-4f9a' };

/** Half an emoji (a surrogate without its pair): text cut by UTF-16 units instead of characters. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function brokenAt(text: string): string | undefined {
  if (text.includes('\uFFFD')) return `a replacement character at ${text.indexOf('\uFFFD')}`;
  const lone = LONE_SURROGATE.exec(text);
  return lone ? `half a character (a lone surrogate) at ${lone.index}` : undefined;
}

/**
 * What every `OutputProcessor` must do: a name and an order; something done to a call that asks
 * for it (so the cases test it); a string for every stream and sample (empty, unicode, ANSI, 200 kB,
 * emoji at every offset), the same one each time, as valid as it came (no replacement character, no
 * half of a surrogate pair); nothing done to a tool that asks for nothing (unless it acts on every tool);
 * and, when it takes whole MCP results, binary blocks never cut into text.
 */
export function outputProcessorContract(test: TestApi, subject: OutputProcessorSubject): void {
  const { describe, it } = test;
  const { processor } = subject;
  const asking: ToolDefinition = { ...TOOL, ...subject.asks };
  // What makes a processor act: the tool asking for it, or (acting on every tool) a call with secrets.
  const secrets = subject.optIn === false ? new Map([[SECRET.reference, SECRET.value]]) : new Map<string, string>();
  const samples = subject.optIn === false ? [...SAMPLES, `the key is ${SECRET.value}\n`] : SAMPLES;
  const context = (tool: ToolDefinition, stream: OutputContext['stream']): OutputContext => ({
    tool,
    secrets: tool === asking ? secrets : new Map(),
    stream,
    params: {},
  });
  describe(`OutputProcessor contract: ${processor.name}`, () => {
    it('has a name and an order', () => {
      assert.ok(processor.name.trim() !== '');
      assert.ok(Number.isFinite(processor.order));
    });

    it('acts on the output of a call that asks for it (else the other cases test nothing)', async () => {
      const changed: string[] = [];
      for (const text of samples)
        if ((await processor.process(text, context(asking, 'output'))) !== text) changed.push(text);
      const asks =
        subject.optIn === false ? 'a call with a secret' : `a tool with ${JSON.stringify(subject.asks ?? {})}`;
      assert.ok(
        changed.length > 0,
        `the processor changed none of the samples for ${asks}: the suite would test nothing`,
      );
    });

    it('turns every sample on every stream into a string, the same one each time, never breaking a character', async () => {
      for (const stream of STREAMS) {
        for (const [i, text] of samples.entries()) {
          const once = await processor.process(text, context(asking, stream));
          assert.equal(typeof once, 'string', `${stream}, sample ${i}: not a string`);
          assert.equal(
            await processor.process(text, context(asking, stream)),
            once,
            `${stream}, sample ${i}: not the same twice`,
          );
          const broken = brokenAt(once);
          assert.ok(!broken || brokenAt(text), `${stream}, sample ${i}: a character was broken: ${broken}`);
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
